"""The manual under docs/ builds as a site, strictly: `mkdocs build --strict` with mkdocs.yml's
validation, so a page missing from the nav, a link to a file that is not there or an anchor
no heading makes fails the suite (the links of README.md, which is not part of the site, are
checked by test_readme.py by GitHub's rules). And the README stays a front page: under 300
lines, the manual's pages a link away."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from support import PROJECT_ROOT

README_MOST_LINES = 300


def test_the_manual_builds_strictly_without_a_warning(tmp_path):
    site = tmp_path / "site"          # never site/ in the tree
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}      # mkdocs-material's notice of its successor
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                          cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300)
    told = f"exit {done.returncode}\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    assert done.returncode == 0, told
    assert not re.search(r"^(WARNING|ERROR)\b", done.stderr, re.MULTILINE), told
    assert (site / "index.html").is_file() and (site / "embedded" / "security" / "index.html").is_file(), told


def test_a_broken_anchor_fails_the_build(tmp_path):
    """The build is the check: a copy of the docs with one link to a heading that does not
    exist must not build."""
    docs = tmp_path / "docs"
    subprocess.run(["cp", "-r", str(Path(PROJECT_ROOT, "docs")), str(docs)], check=True)
    with (docs / "speed.md").open("a", encoding="utf-8") as page:
        page.write("\nSee [the reader](reading.md#no-such-heading).\n")
    config = Path(PROJECT_ROOT, "mkdocs.yml").read_text(encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(config, encoding="utf-8")
    hooks = Path(PROJECT_ROOT, "mkdocs_hooks.py").read_text(encoding="utf-8")
    (tmp_path / "mkdocs_hooks.py").write_text(hooks, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(tmp_path / "site")], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, timeout=300)
    assert done.returncode != 0, done.stderr[-4000:]
    assert "reading.md#no-such-heading" in done.stderr, done.stderr[-4000:]


def test_every_page_is_in_the_nav_and_every_fence_keeps_its_language_on_the_site():
    config = Path(PROJECT_ROOT, "mkdocs.yml").read_text(encoding="utf-8")
    pages = sorted(str(path.relative_to(Path(PROJECT_ROOT, "docs")))
                   for path in Path(PROJECT_ROOT, "docs").glob("**/*.md"))
    assert [page for page in pages if f": {page}\n" not in config] == []
    sys.path.insert(0, PROJECT_ROOT)
    try:
        import mkdocs_hooks
    finally:
        sys.path.remove(PROJECT_ROOT)
    shown = mkdocs_hooks.on_page_markdown("```python no-run: a fragment\nx = 1\n```\n```sh once\n```\n")
    assert shown == "```python\nx = 1\n```\n```sh\n```\n"


def test_the_readme_is_a_front_page():
    lines = Path(PROJECT_ROOT, "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < README_MOST_LINES, f"README.md has {len(lines)} lines: move a section to docs/"
    assert "[docs/index.md](docs/index.md)" in "\n".join(lines)
