"""A plain ibmmq script that forgot `spark_mq.embedded.install()` is told so (spark_mq/
ibmmqc_hint.py, started by the package's .pth): run as a user runs it, from a folder outside
the repository, with the installed package (this environment's editable install, and a
wheel installed into a fresh virtual environment)."""
from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

from support import PROJECT_ROOT, activated_environment

PTH = "spark-mq-ibmmqc-hint.pth"
FORGOT = "import ibmmq\nprint('connected to nothing yet:', ibmmq.CMQC.MQRC_Q_FULL)\n"
REMEMBERED = "import spark_mq.embedded\nspark_mq.embedded.install()\n" + FORGOT


def ibm_client_installed(python: str, cwd: Path) -> bool:
    """Whether IBM's C extension loads here (then the hint must stay out of the way)."""
    probe = "import sys\ntry:\n import ibmmq.ibmmqc\nexcept ImportError:\n sys.exit(1)\n"
    return subprocess.run([python, "-c", probe], cwd=cwd, env=activated_environment(),
                          capture_output=True).returncode == 0


def run_script(python: str, folder: Path, source: str) -> subprocess.CompletedProcess:
    script = folder / "orders.py"
    script.write_text(source)
    return subprocess.run([python, str(script)], cwd=folder, env=activated_environment(),
                          capture_output=True, text=True, timeout=120)


def check_hint(python: str, folder: Path) -> None:
    forgot = run_script(python, folder, FORGOT)
    if ibm_client_installed(python, folder):
        assert forgot.returncode == 0, forgot.stderr       # inert: IBM's client serves
        return
    last = forgot.stderr.strip().splitlines()[-1]
    assert forgot.returncode == 1
    assert last.startswith("ModuleNotFoundError: No module named 'ibmmqc'"), forgot.stderr
    assert "spark_mq.embedded.install() before `import ibmmq`" in last, last
    assert "IBM MQ's client" in last, last
    remembered = run_script(python, folder, REMEMBERED)
    assert remembered.returncode == 0 and "connected to nothing yet: 2053" in remembered.stdout, \
        remembered.stderr


def test_a_script_that_forgot_install_is_told_with_the_editable_install(tmp_path):
    check_hint(shutil.which("python", path=activated_environment()["PATH"]) or sys.executable, tmp_path)


def test_the_wheel_ships_the_hint_and_it_works_in_a_fresh_environment(tmp_path):
    source, wheels = tmp_path / "source", tmp_path / "wheels"
    shutil.copytree(PROJECT_ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(wheels), str(source)], check=True, timeout=300,
                   capture_output=True)
    [wheel] = wheels.glob("spark_mq-*.whl")
    assert PTH in zipfile.ZipFile(wheel).namelist()         # at the top: site-packages itself
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    # ibmmq from this environment, as a plain path: its .pth files (our own among them) unread
    Path(site, "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps",
                    "-q", str(wheel)], check=True, timeout=300, capture_output=True)
    assert Path(site, PTH).exists()
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    check_hint(python, folder)
