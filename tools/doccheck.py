#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tools/doccheck.py FILE...: parse each reStructuredText file with
docutils (Debian's python3-docutils) and print a TAP line per file: ok
when docutils reports nothing at warning level or above.  Sphinx-only
directives (toctree) are accepted, as they only name other files."""
import io
import sys

import docutils.core
from docutils.parsers.rst import Directive, directives


class Toctree(Directive):
    has_content = True
    option_spec = {"maxdepth": directives.unchanged}

    def run(self):
        return []


directives.register_directive("toctree", Toctree)
failed = 0
for path in sys.argv[1:]:
    err = io.StringIO()
    with open(path, encoding="utf-8") as f:
        docutils.core.publish_doctree(
            f.read(), source_path=path,
            settings_overrides={"warning_stream": err, "report_level": 2,
                                "halt_level": 5})
    msgs = err.getvalue().strip()
    if msgs:
        failed += 1
        print(f"not ok - {path} is valid reStructuredText")
        for line in msgs.splitlines()[:20]:
            print(f"#   {line}")
    else:
        print(f"ok - {path} is valid reStructuredText")
sys.exit(1 if failed else 0)
