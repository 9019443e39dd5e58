"""The docs' option tables against the option spec (spark_mq/options/spec.py): the table right
under each heading that names "Connection options", "Reader options" or "Writer options", in
README.md or any page under docs/, lists exactly the spec's options of that side (no more,
none missing, none twice) and shows each one's default as the spec documents it. There is
exactly one table of each kind, so a moved or copied table is found too. Also: every
default in the spec is a value its own parser accepts, and the module docstring lists every
option."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

import spark_mq.options as options_module
from spark_mq.options.spec import CONNECTION, OPTIONS, READ, WRITE, Option, of
from support import PROJECT_ROOT

TABLES = {"Connection options": CONNECTION, "Reader options": READ, "Writer options": WRITE}
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_NAME = re.compile(r"`([^`]+)`")


@dataclass(frozen=True)
class Row:
    where: str          # file:line
    names: tuple[str, ...]
    default: str


def doc_files() -> list[Path]:
    root = Path(PROJECT_ROOT)
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def option_tables(text: str, where: str) -> list[tuple[str, list[Row]]]:
    """(heading phrase, rows) of each table right under a heading naming one of TABLES: the
    first table after the heading, before the next heading."""
    found = []
    lines = text.splitlines()
    for number, line in enumerate(lines):
        if not line.startswith("#"):
            continue
        phrases = [phrase for phrase in TABLES if phrase.lower() in line.lower()]
        if phrases:
            found.append((phrases[0], _table_after(lines, number + 1, where)))
    return found


def _table_after(lines: list[str], start: int, where: str) -> list[Row]:
    rows: list[Row] = []
    default_column = 1
    for number in range(start, len(lines)):
        line = lines[number].strip()
        if line.startswith("#") or (rows and not line.startswith("|")):
            break
        if not line.startswith("|"):
            continue
        cells = [cell.strip() for cell in _CELL_SPLIT.split(line.strip("|"))]
        if cells[0].lower() == "option":
            default_column = [cell.lower() for cell in cells].index("default")
        elif not set(line) <= set("|-: "):
            rows.append(Row(f"{where}:{number + 1}", tuple(_NAME.findall(cells[0])),
                            cells[default_column]))
    return rows


def _shown(cell: str) -> str:
    return " ".join(cell.replace("`", "").split())


def _agrees(cell: str, defaults: list[str]) -> bool:
    """A row of several options shows their defaults in order (`1208`, `546`), or once when
    they share it (`user`, `password`: none)."""
    shown = _shown(cell)
    return shown == ", ".join(defaults) or (len(set(defaults)) == 1 and shown == defaults[0])


def problems(rows: list[Row], options: tuple[Option, ...]) -> list[str]:
    """What the table gets wrong against the spec's options of its side."""
    spec = {option.name: option for option in options}
    listed = [name for row in rows for name in row.names]
    found = [f"{name}: listed twice" for name in sorted(set(listed)) if listed.count(name) > 1]
    found += [f"{name}: in the spec, missing from the table" for name in spec if name not in listed]
    for row in rows:
        unknown = [name for name in row.names if name not in spec]
        found += [f"{row.where}: {name}: in the table, not an option of the spec" for name in unknown]
        defaults = [spec[name].documented_default for name in row.names if name in spec]
        if defaults and not _agrees(row.default, defaults):
            found.append(f"{row.where}: {', '.join(row.names)}: default {row.default!r} in the "
                         f"table, {', '.join(defaults)!r} in the spec")
    return found


def test_each_option_table_is_there_once_and_agrees_with_the_spec():
    tables: dict[str, list[tuple[str, list[Row]]]] = {phrase: [] for phrase in TABLES}
    for path in doc_files():
        where = str(path.relative_to(PROJECT_ROOT))
        for phrase, rows in option_tables(path.read_text(encoding="utf-8"), where):
            tables[phrase].append((where, rows))
    for phrase, side in TABLES.items():
        assert len(tables[phrase]) == 1, (
            f"{len(tables[phrase])} tables under a heading naming {phrase!r} "
            f"({', '.join(where for where, _ in tables[phrase]) or 'none'}); valid: exactly one")
        where, rows = tables[phrase][0]
        assert rows, f"{where}: no table right under the heading naming {phrase!r}"
        wrong = problems(rows, of(side))
        assert not wrong, f"{phrase} ({where}):\n  " + "\n  ".join(wrong)


def test_the_check_finds_a_wrong_default_a_missing_and_an_unknown_option():
    table = ("### Connection options\n\n| option | default | meaning |\n|---|---|---|\n"
             "| `connName` | required (or `ccdtUrl`) | where |\n"
             "| `queueManager` | `QM2` | which |\n| `user`, `password` | none | who |\n"
             "| `colour` | red | not an option |\n")
    [(phrase, rows)] = option_tables(table, "made-up.md")
    assert phrase == "Connection options" and rows[2].names == ("user", "password")
    wrong = problems(rows, of(CONNECTION))
    assert any("queueManager: default '`QM2`'" in line and "'QM1'" in line for line in wrong), wrong
    assert any("colour: in the table, not an option" in line for line in wrong), wrong
    assert "channel: in the spec, missing from the table" in wrong
    assert not any("connName" in line or "user" in line for line in wrong), wrong


@pytest.mark.parametrize("option", [o for o in OPTIONS if o.default is not None and o.parse],
                         ids=lambda o: f"{'/'.join(o.sides)}:{o.name}")
def test_every_default_is_a_value_its_parser_accepts(option):
    given = str(option.default).lower() if isinstance(option.default, bool) else str(option.default)
    assert option.parse is not None and option.parse(option.name, given) == option.default


def test_the_module_docstring_lists_every_option_with_its_default():
    doc = options_module.__doc__ or ""
    for option in OPTIONS:
        assert re.search(rf"^    {option.name} ", doc, re.MULTILINE), option.name
