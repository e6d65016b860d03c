"""Parse one card file, collecting every problem with its line instead of stopping at the first."""

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import yaml

from app.content.cards import Card, Entry, NoteDemo, Point, Problem, Text, Timings, VersionNote, squeeze
from app.content.tf_defaults import TF_DEFAULTS
from app.content.tiers import IMPORTANCES, LEVELS, TIERS, Tier
from app.presets import PRESETS, ParamError, validate_params

SECTIONS = (
    "Answer",
    "Basics",
    "Solid answer",
    "Code",
    "Go deeper",
    "Deep dive",
    "Follow-ups",
    "Pitfalls",
    "True statements",
    "Version notes",
)
# Every section but the notes, which most cards do without.
OPTIONAL_SECTIONS = ("Version notes",)
REQUIRED_KEYS = ("id", "title", "level", "importance", "frequency", "topics", "timings")
OPTIONAL_KEYS = ("demos", "draft")
ID_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# What an entry's heading and body are called in messages, per entry section.
ENTRY_WORDS = {
    "Follow-ups": ("follow-up", "question", "answer"),
    "Pitfalls": ("pitfall", "statement", "why it is wrong"),
    "True statements": ("true statement", "statement", "why it is true"),
}
# The same words for every section made of ### subsections, the notes included (they are not
# quiz or follow-up entries, so ENTRY_WORDS leaves them out).
# The words a misconception is told by ("Thinking prefetch adds threads"): a true statement that
# opens with one reads as the wrong belief, and a quiz taker who trusts the words marks it.
MISCONCEPTION_OPENERS = ("Thinking", "Believing", "Expecting", "Assuming")
_SUBSECTION_WORDS = {**ENTRY_WORDS, "Version notes": ("version note", "quote", "note")}
NOTE_FIELDS = ("Checked", "Source", "Relies on", "Demo", "Parameters")
_NOTE_FIELD = re.compile(r"^(?:[-*][ \t]+)?([A-Za-z][A-Za-z ]*?):[ \t]*(.*)$")
_CHECKED = re.compile(r"^TensorFlow \d+\.\d+(?:\.\d+)?$")
_DEMO = re.compile(r"^([a-z0-9-]+)[ \t]+([a-z0-9-]+)(?:[ \t]+against[ \t]+([a-z0-9-]+))?$")

# The structure is found by scanning lines (ATX headings, fences, numbered items), which is many
# times cheaper than a full markdown parse; rendering happens later, when a page needs the HTML.
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
# The closing #s are cut in Python (_heading_title): one pattern with a lazy title and optional
# closing sequence backtracked quadratically on a line padded with spaces.
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*))?$")
_NUMBERED_ITEM = re.compile(r"^\d{1,9}[.)][ \t]+(.*)$")
# An answer point's indented note for the coverage checker: "- Explanation: ..." or "- Said as: ...".
_POINT_NOTE = re.compile(r"^[-*][ \t]+(Explanation|Said as):[ \t]*(.*)$")
# A follow-up's first line may say what it tests: "Probes: 2, pitfall 1" (a bare number: a point).
_PROBES = re.compile(r"^Probes:[ \t]*(.*)$")
_PROBE = re.compile(r"^(?:(point|pitfall)[ \t]+)?(\d{1,3})$", re.IGNORECASE)
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass
class _Heading:
    level: int
    title: str
    line: int  # 0-based line within the body where the heading stands


@dataclass
class _Section:
    title: str
    line: int  # 1-based line in the file
    lines: list[str]  # the section's body lines
    first_body_line: int  # 1-based line in the file of lines[0]


class CardParseError(Exception):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(map(str, problems)))
        self.problems = problems


def parse_card(path: Path) -> Card:
    """The card in `path`; raises CardParseError listing every problem found."""
    return parse_source(path.read_text(encoding="utf-8"), path)


def parse_source(source: str, path: Path) -> Card:
    """The card whose markdown is `source` (problems name `path`); raises CardParseError listing
    every problem found. The author preview checks text that is in no file with it."""
    parser = _CardParser(path, source)
    card = parser.parse()
    if parser.problems or card is None:
        raise CardParseError(parser.problems)
    return card


class _CardParser:
    def __init__(self, path: Path, source: str) -> None:
        self.path = path
        self.source = source
        self.problems: list[Problem] = []

    def problem(self, line: int, message: str) -> None:
        self.problems.append(Problem(self.path, line, message))

    def parse(self) -> Card | None:
        lines = self.source.splitlines()
        if not lines or lines[0].strip() != "---":
            self.problem(1, "missing YAML frontmatter: the file must start with a '---' line")
            return None
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        if end is None:
            self.problem(1, "frontmatter is not closed: add a '---' line after it")
            return None
        meta = self.frontmatter("\n".join(lines[1:end]), first_line=2, fence_line=1)
        sections = self.sections(lines[end + 1 :], first_line=end + 2)
        if meta is None:
            return None
        return self.build(meta, sections)

    # --- frontmatter -------------------------------------------------------------------------

    def frontmatter(self, text: str, *, first_line: int, fence_line: int) -> dict[str, Any] | None:
        loader = _YAML_LOADER(text)
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            line = first_line + mark.line if mark is not None else fence_line
            problem = getattr(error, "problem", None) or str(error)
            self.problem(line, f"bad YAML: {problem}")
            return None
        finally:
            loader.dispose()
        if not isinstance(data, dict) or not isinstance(node, yaml.MappingNode):
            self.problem(fence_line, "frontmatter must be a YAML mapping of keys to values")
            return None
        key_lines = {key.value: first_line + key.start_mark.line for key, _ in node.value}
        for key in data:
            if key not in REQUIRED_KEYS and key not in OPTIONAL_KEYS:
                known = ", ".join(REQUIRED_KEYS + OPTIONAL_KEYS)
                self.problem(
                    key_lines.get(str(key), fence_line), f"unknown frontmatter key {_shown(key)} ({known})"
                )
        for key in REQUIRED_KEYS:
            if key not in data:
                self.problem(fence_line, f"missing frontmatter key '{key}'")
        meta: dict[str, Any] = dict(data)
        self.check_values(meta, key_lines)
        return meta

    def check_values(self, meta: dict[str, Any], key_lines: dict[str, int]) -> None:
        def bad(key: str, message: str) -> None:
            self.problem(key_lines.get(key, 1), message)
            meta[key] = None

        if "id" in meta and not (isinstance(meta["id"], str) and ID_PATTERN.match(meta["id"])):
            bad("id", "id must be lowercase letters, digits and hyphens, e.g. tf-data-prefetch-last")
        if "title" in meta and not (isinstance(meta["title"], str) and meta["title"].strip()):
            bad("title", "title must be a non-empty string")
        if "level" in meta and meta["level"] not in LEVELS:
            bad("level", f"unknown level {_shown(meta['level'])} (one of {', '.join(LEVELS)})")
        if "importance" in meta and meta["importance"] not in IMPORTANCES:
            bad(
                "importance",
                f"unknown importance {_shown(meta['importance'])} (one of {', '.join(IMPORTANCES)})",
            )
        frequency = meta.get("frequency")
        if "frequency" in meta and not (
            isinstance(frequency, int | float) and not isinstance(frequency, bool) and 0 <= frequency <= 1
        ):
            bad("frequency", "frequency must be a number from 0 to 1 (0.72 for 72 %)")
        topics = meta.get("topics")
        if "topics" in meta and not (
            isinstance(topics, list) and topics and all(isinstance(t, str) and t.strip() for t in topics)
        ):
            bad("topics", "topics must be a non-empty list of names")
        if "timings" in meta and not _valid_timings(meta["timings"]):
            bad("timings", "timings must give positive whole seconds for 'basics' and 'solid'")
        demos = meta.get("demos", [])
        if not isinstance(demos, list) or not all(isinstance(d, str) for d in demos):
            bad("demos", "demos must be a list of demo preset names")
        else:
            for demo in demos:
                if demo not in PRESETS:
                    self.problem(
                        key_lines.get("demos", 1),
                        f"unknown demo preset {_shown(demo)} (one of {', '.join(PRESETS)})",
                    )
        # A YAML boolean only: a quoted "false" would be a string, and true to Python.
        if "draft" in meta and not isinstance(meta["draft"], bool):
            bad("draft", "draft must be true or false, unquoted (true keeps the card out of the library)")

    # --- body sections -----------------------------------------------------------------------

    def sections(self, body: list[str], first_line: int) -> dict[str, _Section]:
        headings = _headings("\n".join(body))
        found: dict[str, _Section] = {}
        level2 = [h for h in headings if h.level == 2]
        if level2 and any(line.strip() for line in body[: level2[0].line]):
            self.problem(first_line, "text before the first section: start the body with '## Answer'")
        for index, heading in enumerate(level2):
            line = first_line + heading.line
            end = level2[index + 1].line if index + 1 < len(level2) else len(body)
            if heading.title not in SECTIONS:
                self.problem(line, f"unknown section '{heading.title}' (sections: {', '.join(SECTIONS)})")
                continue
            if heading.title in found:
                self.problem(line, f"section '{heading.title}' appears twice")
                continue
            found[heading.title] = _Section(
                heading.title, line, body[heading.line + 1 : end], first_body_line=line + 1
            )
        self.check_order(found)
        end_line = first_line + max(len(body) - 1, 0)
        for title in SECTIONS:
            if title not in found and title not in OPTIONAL_SECTIONS:
                self.problem(end_line, f"missing section '## {title}'")
        return found

    def check_order(self, found: dict[str, _Section]) -> None:
        previous: _Section | None = None
        for title in SECTIONS:
            section = found.get(title)
            if section is None:
                continue
            if previous is not None and section.line < previous.line:
                self.problem(
                    section.line, f"section '{title}' is out of order: it goes after '{previous.title}'"
                )
            previous = section

    def build(self, meta: dict[str, Any], sections: dict[str, _Section]) -> Card | None:
        points = self.answer_points(sections.get("Answer"))
        basics = self.prose(sections.get("Basics"))
        solid = self.prose(sections.get("Solid answer"))
        deep_dive = self.prose(sections.get("Deep dive"))
        code = self.code(sections.get("Code"))
        go_deeper = self.go_deeper(sections.get("Go deeper"))
        entries = {title: self.entries(sections.get(title)) for title in ENTRY_WORDS}
        entries["Follow-ups"] = tuple(
            self.probes(entry, points=len(points or ()), pitfalls=len(entries["Pitfalls"]))
            for entry in entries["Follow-ups"]
        )
        statements = entries["Pitfalls"] + entries["True statements"]
        self.unique_keys("quiz statement", [(entry.line, entry.title) for entry in statements])
        if self.problems:
            return None
        assert basics and solid and deep_dive and code and go_deeper is not None
        # What a note may quote: the prose a reader sees, where a callout can stand beside it.
        prose = [basics, solid, deep_dive, *go_deeper.values()] + [
            entry.body for section in entries.values() for entry in section
        ]
        notes = self.version_notes(sections.get("Version notes"), prose)
        if self.problems:
            return None
        timings = meta["timings"]
        return Card(
            id=meta["id"],
            title=Text(meta["title"], inline=True),
            level=cast(Tier, meta["level"]),
            importance=meta["importance"],
            frequency=float(meta["frequency"]),
            topics=tuple(meta["topics"]),
            timings=Timings(basics=int(timings["basics"]), solid=int(timings["solid"])),
            demos=tuple(meta.get("demos") or ()),
            points=points,
            basics=basics,
            solid=solid,
            code=code[0],
            code_language=code[1],
            code_line_count=code[2],
            go_deeper=go_deeper,
            deep_dive=deep_dive,
            follow_ups=entries["Follow-ups"],
            pitfalls=entries["Pitfalls"],
            truths=entries["True statements"],
            path=self.path,
            notes=notes,
            draft=bool(meta.get("draft")),
        )

    def prose(self, section: _Section | None) -> Text | None:
        if section is None:
            return None
        markdown = "\n".join(section.lines).strip()
        if not markdown:
            self.problem(section.line, f"section '{section.title}' is empty")
            return None
        return Text(markdown)

    def answer_points(self, section: _Section | None) -> tuple[Point, ...]:
        """The top-level numbered list; an item's indented lines continue it, except its notes for
        the coverage checker (`- Explanation: ...`, at most one, and `- Said as: ...`); an indented
        line after a note continues that note, never the point (which would change its key)."""
        if section is None:
            return ()
        items: list[tuple[int, list[str], dict[str, list[str]]]] = []  # (file line, lines, notes)
        noted: list[str] | None = None  # the note the item's last line was part of
        for index, line in enumerate(_outside_fences(section.lines)):
            if line is None:
                continue
            if match := _NUMBERED_ITEM.match(line):
                items.append((section.first_body_line + index, [match.group(1).strip()], {}))
                noted = None
            elif items and line[:1] in (" ", "\t") and line.strip():
                if note := _POINT_NOTE.match(line.strip()):
                    noted = self.point_note(section.first_body_line + index, note=note, notes=items[-1][2])
                elif noted:
                    noted[-1] = f"{noted[-1]} {' '.join(line.split())}"
                else:
                    items[-1][1].append(line.strip())
        if not items:
            self.problem(section.line, "section 'Answer' needs a numbered list of answer points (1. ...)")
        points = [
            (
                line,
                Point(
                    " ".join(parts),
                    inline=True,
                    explanation=" ".join(notes.get("Explanation", [])),
                    phrasings=tuple(notes.get("Said as", [])),
                    line=line,
                ),
            )
            for line, parts, notes in items
        ]
        self.unique_keys("answer point", points)
        return tuple(point for _, point in points)

    def point_note(self, line: int, *, note: re.Match[str], notes: dict[str, list[str]]) -> list[str] | None:
        """Add the note; the list it went into, for the lines that continue it."""
        label, text = note.group(1), " ".join(note.group(2).split())
        if not text:
            self.problem(line, f"'{label}:' under an answer point needs text after it")
        elif label == "Explanation" and notes.get(label):
            self.problem(line, "an answer point has one 'Explanation:'; join the sentences into one")
        else:
            notes.setdefault(label, []).append(text)
            return notes[label]
        return None

    def unique_keys(self, noun: str, items: Sequence[tuple[int, Text]]) -> None:
        """Attempts store an item by its key, so two items with one key would share their history."""
        first_line: dict[str, int] = {}
        for line, text in items:
            if text.key in first_line:
                self.problem(
                    line,
                    f"{noun} repeats the one on line {first_line[text.key]} "
                    "(the same text once case, punctuation and spacing are ignored): reword one",
                )
            else:
                first_line[text.key] = line

    def code(self, section: _Section | None) -> tuple[Text, str, int] | None:
        if section is None:
            return None
        markdown = "\n".join(section.lines).strip()
        fence = _first_fence(section.lines)
        if fence is None:
            self.problem(section.line, "section 'Code' needs a fenced code block (```python ... ```)")
            return None
        language, line_count = fence
        return Text(markdown), language, line_count

    def go_deeper(self, section: _Section | None) -> dict[Tier, Text] | None:
        if section is None:
            return None
        parts = self.subsections(section)
        result: dict[Tier, Text] = {}
        for title, line, body in parts:
            tier = title.lower()
            if tier not in TIERS:
                self.problem(line, f"unknown go-deeper tier '{title}' (Junior, Middle, Senior, Principal)")
            elif tier in result:
                self.problem(line, f"go-deeper tier '{title}' appears twice")
            elif not body:
                self.problem(line, f"go-deeper tier '{title}' is empty")
            else:
                result[tier] = Text(body)
        for tier in TIERS:
            if tier not in result and not any(t.lower() == tier for t, _, _ in parts):
                self.problem(section.line, f"section 'Go deeper' is missing '### {tier.title()}'")
        return result

    def entries(self, section: _Section | None) -> tuple[Entry, ...]:
        if section is None:
            return ()
        noun, head, body_name = ENTRY_WORDS[section.title]
        parts = self.subsections(section)
        if not parts:
            self.problem(section.line, f"section '{section.title}' needs at least one '### ' {noun}")
        entries = []
        for title, line, body in parts:
            if not title:
                self.problem(line, f"{noun} with no {head}: write it after '### '")
            elif not body:
                self.problem(line, f"empty {noun} {body_name}: write it below '### {title}'")
            elif not (shown := Text(title, inline=True)).plain.strip():
                # A quiz taker would be asked about nothing, and the opener check has no word to read.
                self.problem(
                    line,
                    f"{noun} heading shows no words (a bare link or image reads as nothing): write them after '### '",
                )
            else:
                entry = Entry(shown, Text(body), line)
                if section.title == "True statements":
                    self.plain_claim(entry)
                entries.append(entry)
        return tuple(entries)

    def probes(self, entry: Entry, *, points: int, pitfalls: int) -> Entry:
        """The follow-up with its `Probes:` line read off its answer (kept as written when the
        line has a problem, which is reported)."""
        first, _, rest = entry.body.markdown.partition("\n")
        match = _PROBES.match(first.strip())
        if not match:
            return entry
        found: dict[str, list[int]] = {"point": [], "pitfall": []}
        counts = {"point": points, "pitfall": pitfalls}
        for token in (t.strip() for t in match.group(1).split(",")):
            probe = _PROBE.match(token)
            if not probe:
                self.problem(
                    entry.line + 1,
                    f"'Probes:' names answer points and pitfalls by number ('Probes: 2, pitfall 1'), not '{token}'",
                )
                return entry
            what, number = (probe.group(1) or "point").lower(), int(probe.group(2))
            if not 1 <= number <= counts[what]:
                self.problem(
                    entry.line + 1, f"'Probes:' names {what} {number}, and the card has {counts[what]}"
                )
                return entry
            found[what].append(number - 1)
        if not rest.strip():
            self.problem(
                entry.line,
                f"empty follow-up answer: write it below the 'Probes:' line of '### {entry.title.markdown}'",
            )
            return entry
        return Entry(
            entry.title,
            Text(rest.strip()),
            entry.line,
            points=tuple(dict.fromkeys(found["point"])),
            pitfalls=tuple(dict.fromkeys(found["pitfall"])),
        )

    def plain_claim(self, entry: Entry) -> None:
        opener = entry.title.plain.split(maxsplit=1)[0].capitalize()
        if opener in MISCONCEPTION_OPENERS:
            self.problem(
                entry.line,
                f"true statement opens like a misconception ('{opener} …'): state the claim itself "
                "as a plain sentence, so its words do not answer the quiz",
            )

    def version_notes(self, section: _Section | None, prose: list[Text]) -> tuple[VersionNote, ...]:
        """Each `### quote` entry: its fields (`Checked:`, `Source:`, …), then the note itself."""
        if section is None:
            return ()
        notes: list[VersionNote] = []
        for quote, line, body in self.subsections(section):
            note = _NoteReader(self, quote, line, body).read()
            if note is None:
                continue
            if not any(note.quoted_in(text.markdown) for text in prose):
                self.problem(
                    line,
                    f"version note quotes text the card does not have: '{squeeze(quote)}' "
                    "(quote the card's words as written, from a paragraph or list item, not a heading)",
                )
            notes.append(note)
        self.unique_keys("version note", [(note.line, Text(note.quote)) for note in notes])
        return tuple(notes)

    def subsections(self, section: _Section) -> list[tuple[str, int, str]]:
        """(title, file line, body markdown) for each ### heading; text before the first is a problem."""
        text = "\n".join(section.lines)
        headings = [h for h in _headings(text) if h.level == 3]
        first = headings[0].line if headings else len(section.lines)
        if any(line.strip() for line in section.lines[:first]):
            stray = next(i for i, line in enumerate(section.lines) if line.strip())
            what = _SUBSECTION_WORDS.get(section.title, ("entry", "heading", ""))
            self.problem(
                section.first_body_line + stray,
                f"text with no {what[1]}: start each {what[0]} with a '### ' heading",
            )
        parts = []
        for index, heading in enumerate(headings):
            end = headings[index + 1].line if index + 1 < len(headings) else len(section.lines)
            body = "\n".join(section.lines[heading.line + 1 : end]).strip()
            parts.append((heading.title, section.first_body_line + heading.line, body))
        return parts


class _NoteReader:
    """One version note: the `Field: value` lines under its heading, then its text."""

    def __init__(self, parser: "_CardParser", quote: str, line: int, body: str) -> None:
        self.parser, self.quote, self.line = parser, quote, line
        self.fields: dict[str, tuple[int, str]] = {}
        lines = body.split("\n")
        end = 0  # the fields stop at the first line that is not one (a blank line, the text)
        for index, text in enumerate(lines):
            match = _NOTE_FIELD.match(text.strip())
            if not match or not _looks_like_field(match.group(1)):
                break
            if match.group(1) in NOTE_FIELDS:
                self.fields[match.group(1)] = (line + 1 + index, match.group(2).strip())
            else:
                self.problem(
                    index, f"unknown version note field '{match.group(1)}' ({', '.join(NOTE_FIELDS)})"
                )
            end = index + 1
        self.text = "\n".join(lines[end:]).strip()

    def problem(self, offset: int, message: str) -> None:
        self.parser.problem(self.line + 1 + offset, message)

    def field_problem(self, name: str, message: str) -> None:
        self.parser.problem(self.fields[name][0] if name in self.fields else self.line, message)

    def read(self) -> VersionNote | None:
        before = len(self.parser.problems)
        if not self.quote:
            self.parser.problem(self.line, "version note with no quote: write the card's words after '### '")
        checked = self.fields.get("Checked", (0, ""))[1]
        if "Checked" not in self.fields:
            self.field_problem(
                "Checked", "version note needs 'Checked: TensorFlow <version>' (e.g. TensorFlow 2.21)"
            )
        elif not _CHECKED.match(checked):
            self.field_problem(
                "Checked", f"'Checked: {checked}' must name a release: 'Checked: TensorFlow 2.21'"
            )
        sources = tuple(s.strip() for s in self.fields.get("Source", (0, ""))[1].split(";") if s.strip())
        if not sources:
            self.field_problem(
                "Source", "version note needs 'Source:' (a docs page or a source path; several: a; b)"
            )
        relies_on = tuple(
            name.strip() for name in self.fields.get("Relies on", (0, ""))[1].split(",") if name.strip()
        )
        for name in relies_on:
            if name not in TF_DEFAULTS:
                self.field_problem(
                    "Relies on", f"unknown TensorFlow default '{name}' (one of {', '.join(TF_DEFAULTS)})"
                )
        demo = self.demo()
        if not self.text:
            self.parser.problem(self.line, "empty version note: write what TensorFlow does below its fields")
        if len(self.parser.problems) > before:
            return None
        return VersionNote(
            quote=self.quote,
            checked=checked,
            sources=sources,
            relies_on=relies_on,
            demo=demo,
            body=Text(self.text),
            line=self.line,
        )

    def demo(self) -> NoteDemo | None:
        if "Demo" not in self.fields:
            if "Parameters" in self.fields:
                self.field_problem("Parameters", "'Parameters:' needs a 'Demo:' line to apply to")
            return None
        value = self.fields["Demo"][1]
        match = _DEMO.match(value)
        if not match:
            self.field_problem(
                "Demo",
                f"'Demo: {value}' must read '<preset> <variant>' or '<preset> <variant> against <variant>'",
            )
            return None
        preset, variant, against = match.groups()
        if preset not in PRESETS:
            self.field_problem("Demo", f"unknown demo preset '{preset}' (one of {', '.join(PRESETS)})")
            return None
        names = PRESETS[preset].variant_names
        for name in (variant, against):
            if name is not None and name not in names:
                self.field_problem("Demo", f"{preset} has no variant '{name}' (one of {', '.join(names)})")
                return None
        params = self.params(preset)
        return None if params is None else NoteDemo(preset, variant, against, params)

    def params(self, preset: str) -> tuple[tuple[str, int], ...] | None:
        value = self.fields.get("Parameters", (0, ""))[1]
        given: dict[str, str] = {}
        for pair in filter(None, (p.strip() for p in value.split(","))):
            name, equals, number = pair.partition("=")
            if not equals:
                self.field_problem("Parameters", f"'{pair}' must read name=value, e.g. steps=60")
                return None
            given[name.strip()] = number.strip()
        try:
            validate_params(preset, params=given)
        except ParamError as error:
            self.field_problem("Parameters", f"{preset}: {error.message}")
            return None
        return tuple((name, int(number)) for name, number in given.items())


def _looks_like_field(name: str) -> bool:
    """A capitalised one- or two-word label before a colon, as a misspelt field would be."""
    return name[:1].isupper() and len(name.split()) <= 2


def _valid_timings(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(value.get(key), int) and not isinstance(value.get(key), bool) and value[key] > 0
        for key in ("basics", "solid")
    )


def _outside_fences(lines: list[str]) -> Iterator[str | None]:
    """Each line, or None for a line that belongs to a fenced code block."""
    fence: str | None = None
    for line in lines:
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
            yield None
        elif fence is not None:
            if (
                match
                and match.group(1)[0] == fence[0]
                and len(match.group(1)) >= len(fence)
                and not match.group(2).strip()
            ):
                fence = None
            yield None
        else:
            yield line


def _first_fence(lines: list[str]) -> tuple[str, int] | None:
    """The language and line count of the first fenced block."""
    start = None
    for index, line in enumerate(lines):
        match = _FENCE.match(line)
        if start is None and match:
            start, fence, info = index, match.group(1), match.group(2).strip()
        elif start is not None and match and match.group(1).startswith(fence) and not match.group(2).strip():
            return (info.split()[0] if info else ""), index - start - 1
    return None


def _heading_title(text: str) -> str:
    """An ATX heading's text without its optional closing #s (kept when glued to a word: `C#`)."""
    title = text.strip(" \t")
    bare = title.rstrip("#")
    if bare != title and (not bare or bare[-1] in " \t"):
        title = bare.rstrip(" \t")
    return title


def _shown(value: Any) -> str:
    """A frontmatter value for a message: a string, cut short, or what kind of thing it is (a
    nested YAML alias prints as megabytes)."""
    if isinstance(value, str):
        return f"'{value[:60]}…'" if len(value) > 60 else f"'{value}'"
    kinds: dict[type, str] = {list: "a list", dict: "a mapping"}
    return kinds.get(type(value), f"a {type(value).__name__}")


def _headings(markdown: str) -> list[_Heading]:
    """ATX headings outside code fences, with their 0-based lines."""
    headings = []
    for number, line in enumerate(_outside_fences(markdown.split("\n"))):
        if line is not None and (match := _HEADING.match(line)):
            headings.append(_Heading(len(match.group(1)), _heading_title(match.group(2) or ""), number))
    return headings
