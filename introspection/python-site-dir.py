# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# Prints the first directory of this Python's sys.path that is under the
# prefix given as argument and holds packages, or nothing: where the
# overrides are installed so that this Python finds them.

import os
import sys

prefix = os.path.normpath(sys.argv[1])
for entry in map(os.path.normpath, sys.path):
    if entry.startswith(prefix + os.sep) and os.path.basename(entry) in ('dist-packages', 'site-packages'):
        print(entry)
        break
