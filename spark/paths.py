"""Where the Spark tests find the scripts, the arbiter binary (ARBITER_BIN) and the corpus
(ARBITER_CORPUS)."""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
JUDGE = ROOT / "spark" / "judge.py"
SEARCH = ROOT / "spark" / "search.py"
ARBITER = Path(os.environ.get("ARBITER_BIN", ROOT / "target" / "release" / "arbiter")).resolve()
CORPUS = Path(os.environ.get("ARBITER_CORPUS", ROOT.parent / "shared" / "corpus"))
