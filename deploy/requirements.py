"""The images' dependency lists, from pyproject.toml alone (the Dockerfile's builder stage runs it).

    python3 requirements.py PYPROJECT FOLDER

writes FOLDER/web.txt (the app's own dependencies) and one file per extra that a worker image may
install, FOLDER/worker.txt and FOLDER/gpu.txt: the web list plus the extra's requirements, with
the extras it names of this project (tiercards[speech]) replaced by theirs, since a requirements
file must not ask an index for tiercards itself. They go in before the app's wheel, so that the
large dependency layers (TensorFlow) are rebuilt only when pyproject.toml changes.
"""

import sys
import tomllib
from pathlib import Path

WORKER_EXTRAS = ("worker", "gpu")


def expanded(project: dict, extra: str) -> list[str]:
    found: list[str] = []
    for requirement in project["optional-dependencies"][extra]:
        name, _, rest = requirement.partition("[")
        if name == project["name"]:
            for inner in rest.rstrip("]").split(","):
                found += expanded(project, inner.strip())
        else:
            found.append(requirement)
    return found


def main(pyproject: str, folder: str) -> None:
    project = tomllib.loads(Path(pyproject).read_text())["project"]
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    web = project["dependencies"]
    (out / "web.txt").write_text("\n".join(web) + "\n")
    for extra in WORKER_EXTRAS:
        (out / f"{extra}.txt").write_text("\n".join(web + expanded(project, extra)) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
