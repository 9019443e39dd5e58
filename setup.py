"""The one thing pyproject.toml cannot say: the start-up hook spark-mq-ibmmqc-hint.pth, which
goes to site-packages itself (next to the packages, not inside one), for wheels and for
editable installs alike. What it does: spark_mq/ibmmqc_hint.py."""
from __future__ import annotations

import os
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.editable_wheel import editable_wheel

PTH_NAME = "spark-mq-ibmmqc-hint.pth"
# A .pth line that starts with `import` is run at start-up. It loads the hint's file by
# itself, without importing the spark_mq package: its __init__ looks at what the program has
# imported when the program first imports it, which must not happen before the program runs.
PTH_TEXT = ("import sys; exec('try:\\n import importlib.util as u, os\\n"
            " d = list(u.find_spec(\"spark_mq\").submodule_search_locations)[0]\\n"
            " s = u.spec_from_file_location(\"spark_mq_ibmmqc_hint\", "
            "os.path.join(d, \"ibmmqc_hint.py\"))\\n"
            " h = u.module_from_spec(s); s.loader.exec_module(h); h.activate()\\n"
            "except Exception:\\n pass')\n")


class BuildPy(build_py):
    """Also writes the .pth at the top of the wheel's tree."""

    def run(self) -> None:
        super().run()
        if not self.editable_mode:
            Path(self.build_lib, PTH_NAME).write_text(PTH_TEXT)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return [*super().get_outputs(include_bytecode), os.path.join(self.build_lib, PTH_NAME)]


class EditableWheel(editable_wheel):
    """Also puts the .pth in the editable wheel (which holds no build_py output)."""

    def _run_build_commands(self, dist_name, unpacked_wheel, build_lib, tmp_dir):  # type: ignore[no-untyped-def]
        result = super()._run_build_commands(dist_name, unpacked_wheel, build_lib, tmp_dir)
        Path(unpacked_wheel, PTH_NAME).write_text(PTH_TEXT)
        return result


setup(cmdclass={"build_py": BuildPy, "editable_wheel": EditableWheel})
