#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""check-portable.py catches what it is for: a small tree whose meson.build
probes a few calls, one source file at a time made right or wrong. TAP."""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, 'check-portable.py')

MESON = """platform_probes = {
  'HAVE_MSG_NOSIGNAL': true,
  'HAVE_SIGTIMEDWAIT': true,
  'HAVE_PR_SET_PDEATHSIG': true,
  'HAVE_PROCCTL_PDEATHSIG': true,
}
"""

CASES = [
    # (description, file, its text, should pass)
    ('a flag under its #ifdef', 'snodo/wire/snodo-a.c',
     '#ifdef HAVE_MSG_NOSIGNAL\nint f = MSG_NOSIGNAL;\n#endif\n', True),
    ('a flag with no guard', 'snodo/wire/snodo-a.c',
     'int f = MSG_DONTWAIT | MSG_NOSIGNAL;\n', False),
    ('a flag under the symbol\'s own #ifdef, not the probe', 'snodo/wire/snodo-a.c',
     '#ifdef MSG_NOSIGNAL\nint f = MSG_NOSIGNAL;\n#endif\n', False),
    ('a call in the #else of its #ifdef', 'snodo/wire/snodo-a.c',
     '#ifdef HAVE_SIGTIMEDWAIT\nint a;\n#else\nint b = sigtimedwait (0, 0, 0);\n#endif\n', False),
    ('a call in the #else of its #ifndef', 'snodo/wire/snodo-a.c',
     '#ifndef HAVE_SIGTIMEDWAIT\nint a;\n#else\nint b = sigtimedwait (0, 0, 0);\n#endif\n', True),
    ('a call under #if defined() && …', 'snodo/wire/snodo-a.c',
     '#if defined(G_OS_UNIX) && defined (HAVE_SIGTIMEDWAIT)\nint b = sigtimedwait (0, 0, 0);\n#endif\n', True),
    ('a call under #if !defined()', 'snodo/wire/snodo-a.c',
     '#if !defined(HAVE_SIGTIMEDWAIT)\nint b = sigtimedwait (0, 0, 0);\n#endif\n', False),
    ('a call under either of two guards', 'snodo/client/snodo-c.c',
     '#if defined(HAVE_PR_SET_PDEATHSIG) || defined(HAVE_PROCCTL_PDEATHSIG)\nint a = prctl (1);\n#endif\n', False),
    ('each call under its #if/#elif', 'snodo/client/snodo-c.c',
     '#if defined(HAVE_PR_SET_PDEATHSIG)\nint a = prctl (1);\n#elif defined(HAVE_PROCCTL_PDEATHSIG)\n'
     'int b = procctl (1);\n#endif\n', True),
    ('a call under the #elif of another guard', 'snodo/client/snodo-c.c',
     '#if defined(HAVE_PROCCTL_PDEATHSIG)\nint b = 0;\n#elif defined(HAVE_MSG_NOSIGNAL)\n'
     'int b = procctl (1);\n#endif\n', False),
    ('a header with no guard', 'snodo/client/snodo-c.c',
     '#include <sys/prctl.h>\n', False),
    ('__linux__ as the guard in the library', 'snodo/client/snodo-c.c',
     '#ifdef __linux__\n#include <sys/prctl.h>\n#endif\n', False),
    ('__linux__ as the guard in a test', 'tests/test-a.c',
     '#ifdef __linux__\n#include <sys/prctl.h>\n#endif\n', True),
    ('comments and strings', 'snodo/wire/snodo-a.c',
     '/* getrandom() or MSG_NOSIGNAL */\nconst char *s = "pipe2 \\" SOCK_CLOEXEC";\nchar c = \'\\\'\';\n', True),
    ('a continued #if line', 'snodo/wire/snodo-a.c',
     '#if defined(G_OS_UNIX) && \\\n    defined(HAVE_MSG_NOSIGNAL)\nint f = MSG_NOSIGNAL;\n#endif\n', True),
    ('a guard meson.build does not probe', 'snodo/wire/snodo-a.c',
     '#ifdef HAVE_PIPE2\nint r = pipe2 (0, 0);\n#endif\n', False),
    ('nested guards, the inner one right', 'snodo/wire/snodo-a.c',
     '#ifdef G_OS_UNIX\n# ifdef HAVE_MSG_NOSIGNAL\nint f = MSG_NOSIGNAL;\n# endif\nint g;\n#endif\n', True),
    ('after the #endif of its guard', 'snodo/wire/snodo-a.c',
     '#ifdef HAVE_MSG_NOSIGNAL\nint f;\n#endif\nint g = MSG_NOSIGNAL;\n', False),
]


def main():
    n = 0
    failures = 0
    for description, path, text, should_pass in CASES:
        with tempfile.TemporaryDirectory() as root:
            with open(os.path.join(root, 'meson.build'), 'w') as f:
                f.write(MESON)
            os.makedirs(os.path.dirname(os.path.join(root, path)))
            with open(os.path.join(root, path), 'w') as f:
                f.write(text)
            result = subprocess.run([sys.executable, CHECK, root], capture_output=True, text=True)
            passed = result.returncode == 0
            n += 1
            ok = passed == should_pass
            if not ok:
                failures += 1
                for line in result.stdout.splitlines():
                    print('# ' + line)
            print('%s %d - %s: %s' % ('ok' if ok else 'not ok', n, description,
                                      'passes' if should_pass else 'is caught'))
    print('1..%d' % n)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
