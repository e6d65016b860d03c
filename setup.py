"""The wheel carries what the app reads beside its code: templates, static files, the migrations
with alembic.ini, and the default cards.

In the repository they sit at the top level, beside app/. An installed wheel has nothing beside
its package, so the build copies them into the package as app/bundled/, where app.PROJECT_ROOT
finds them. An editable install (and a plain checkout) keeps reading them from the top level.
Everything else about the package is declared in pyproject.toml.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
# Named in MANIFEST.in too, so that a wheel built from an sdist has them as well.
BUNDLED = ("templates", "static", "migrations", "content", "alembic.ini")
TARGET = Path("app") / "bundled"


class BuildPyWithProjectFiles(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        target = Path(self.build_lib) / TARGET
        # build/ outlives a build: start afresh so that a deleted template is not shipped.
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        for name in BUNDLED:
            source = ROOT / name
            if source.is_dir():
                shutil.copytree(
                    source, target / name, ignore=shutil.ignore_patterns("__pycache__", "*.py[co]")
                )
            else:
                # A missing file fails the build rather than making a wheel that cannot serve pages.
                shutil.copy2(source, target / name)


setup(cmdclass={"build_py": BuildPyWithProjectFiles})
