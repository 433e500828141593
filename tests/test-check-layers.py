#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""check-layers.py catches what it is for: a small tree with the project's
own architecture page, one file at a time made wrong. TAP."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, 'check-layers.py')
PAGE = os.path.join(HERE, '..', 'introspection', 'architecture.md')

CASES = [
    # (description, file, its text, should pass)
    ('a file of its own folder', 'snodo/protocol/snodo-a.c',
     '#include "config.h"\n#include "snodo-a-private.h"\n', True),
    ('a lower layer\'s private header', 'snodo/protocol/snodo-a.c',
     '#include "snodo-wire-private.h"\n#include "snodo-base-private.h"\n', True),
    ('a lower layer\'s public header', 'snodo/server/snodo-b.c',
     '#include "snodo-tool.h"\n', True),
    ('a higher layer\'s public header', 'snodo/protocol/snodo-a.c',
     '#include "snodo-tool.h"\n', False),
    ('a higher layer\'s private header', 'snodo/wire/snodo-w.c',
     '#include "snodo-protocol-private.h"\n', False),
    ('a lower layer\'s per-file private header', 'snodo/server/snodo-b.c',
     '#include "snodo-w-private.h"\n', False),
    ('a layer beside it', 'snodo/executor/snodo-e.c',
     '#include "snodo-wire-private.h"\n', False),
    ('the catch-all umbrella', 'snodo/server/snodo-b.c',
     '#include "snodo.h"\n', False),
    ('a library the layer never uses', 'snodo/executor/snodo-e.c',
     '#include <json-glib/json-glib.h>\n', False),
    ('libsoup in the transport', 'snodo/transport/snodo-t.c',
     '#include <libsoup/soup.h>\n', True),
]

TREE = {
    'snodo/base/snodo-base-private.h': '',
    'snodo/wire/snodo-wire-private.h': '',
    'snodo/wire/snodo-w-private.h': '',
    'snodo/wire/snodo-w.c': '',
    'snodo/executor/snodo-e.c': '',
    'snodo/protocol/snodo-protocol-private.h': '',
    'snodo/protocol/snodo-a-private.h': '',
    'snodo/protocol/snodo-a.c': '',
    'snodo/catalog/snodo-tool.h': '',
    'snodo/server/snodo-b.c': '',
    'snodo/transport/snodo-t.c': '',
    'snodo/snodo.h': '',
}


def main():
    failures = 0
    n = 0
    for description, path, text, should_pass in CASES:
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, 'introspection'))
            shutil.copy(PAGE, os.path.join(root, 'introspection'))
            # Every layer folder the page names exists, empty unless below.
            for folder in re.findall(r'^\| `[a-z]+` \| `([^`]+)`', open(PAGE).read(), re.M):
                os.makedirs(os.path.join(root, folder), exist_ok=True)
            for name, content in TREE.items():
                os.makedirs(os.path.join(root, os.path.dirname(name)), exist_ok=True)
                with open(os.path.join(root, name), 'w') as f:
                    f.write(content)
            with open(os.path.join(root, path), 'w') as f:
                f.write(text)
            result = subprocess.run([sys.executable, CHECK, root], capture_output=True, text=True)
        passed = result.returncode == 0
        n += 1
        ok = passed == should_pass
        failures += not ok
        print('%s %d - %s is %s' % ('ok' if ok else 'not ok', n, description,
                                    'allowed' if should_pass else 'refused'))
        if not ok:
            print('# ' + result.stdout.replace('\n', '\n# '))
    print('1..%d' % n)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
