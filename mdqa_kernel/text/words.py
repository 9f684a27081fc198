"""Word lists the readers and the planner share (data in `text/data/words.json`).

One list each, so that what the planner writes into a plan is what a reader looks for on the page:
- `FACT_VERBS`: the verbs a yes/no fact is stated with ("是否采用GRI标准"), as regex alternatives;
- `KNOWN_SETS`: sets a boolean field can ask membership of (the Big Four auditors), keyed by the
  regex that names the set in a description or question;
- `NAMES_ASKED`: words asking for people's names ("姓名", "名单", "names").
"""

from __future__ import annotations

import re

from mdqa_kernel.text.datafiles import TextDataError, entry, string_list

_FILE = "words.json"


def _known_sets() -> dict[str, tuple[str, ...]]:
    raw = entry(_FILE, "known_sets")
    if not isinstance(raw, dict) or not all(
        isinstance(v, list) and all(isinstance(n, str) for n in v) for v in raw.values()
    ):
        raise TextDataError(f"{_FILE}: 'known_sets' must map a regex to a list of names")
    return {key: tuple(names) for key, names in raw.items()}


# Alternatives in the file's order: longer verbs first ("使用或参照" before "使用").
FACT_VERBS: str = "|".join(string_list(_FILE, "fact_verbs"))
KNOWN_SETS: dict[str, tuple[str, ...]] = _known_sets()
NAMES_ASKED: re.Pattern[str] = re.compile("|".join(string_list(_FILE, "names_asked")), re.IGNORECASE)
