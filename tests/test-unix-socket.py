#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""snodo-demo on a Unix socket, as an operator sets it up.

    test-unix-socket.py   (TAP on standard output; SNODO_DEMO names the demo,
                           SNODO_DATA the source folder data/)

- --http-unix-mode and --http-unix-group give the socket its mode and
  group; as root, a process of another user in that group connects, one
  outside it does not, and without the options a group member cannot
  either (the umask's 0755);
- a socket file left behind by a server that is gone is replaced and
  served; a socket another server listens on is refused with exit status
  3, and keeps working; a file that is not a socket is refused with exit
  status 3 and left alone;
- data/deploy/snodo-demo.socket and snodo-demo.service pass
  `systemd-analyze verify`, and snodo-demo serves a socket made as the
  socket unit says, passed as systemd passes it (LISTEN_FDS), with the
  service's own command line: bearer tokens required, the 401 naming the
  public https metadata URL.

A program that is not installed (systemd-analyze) skips the check that
needs it, saying so; under CI (CI set and not "false") it fails instead.
"""

import configparser
import grp
import http.client
import json
import os
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time

START_TIMEOUT = 20.0
IN_CI = os.environ.get('CI', '') not in ('', 'false', '0')
AS_ROOT = os.geteuid() == 0
# The unprivileged user a proxy's workers would run as.
OTHER_UID = 65534
ECHO = {'jsonrpc': '2.0', 'id': 1, 'method': 'tools/call',
        'params': {'name': 'echo', 'arguments': {'text': 'over the socket'},
                   '_meta': {'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                             'io.modelcontextprotocol/clientCapabilities': {}}}}
ECHO_HEADERS = {'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'echo'}

results = []


def report(ok, name, detail=''):
    results.append(ok)
    print('%s %d - %s' % ('ok' if ok else 'not ok', len(results), name), flush=True)
    for text in detail.splitlines():
        print('# ' + text, flush=True)


def skip(name, why):
    if IN_CI:
        report(False, name, 'CI is set, so this may not be skipped: ' + why)
    else:
        results.append(True)
        print('ok %d - %s # SKIP %s' % (len(results), name, why), flush=True)


def run_check(name, func, *args):
    try:
        detail = func(*args)
        report(True, name, detail or '')
    except Exception as e:  # noqa: BLE001 - every failure is reported
        report(False, name, '%s: %s' % (type(e).__name__, e))


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__('localhost', timeout=START_TIMEOUT)
        self.unix_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(START_TIMEOUT)
        self.sock.connect(self.unix_path)


def post(path, body, headers, host='localhost'):
    """POSTs @body to /mcp over the Unix socket at @path: (status, headers, JSON or None)."""
    connection = UnixConnection(path)
    try:
        all_headers = {'Host': host, 'Content-Type': 'application/json',
                       'Accept': 'application/json, text/event-stream'}
        all_headers.update(headers)
        connection.request('POST', '/mcp', json.dumps(body).encode(), all_headers)
        response = connection.getresponse()
        data = response.read()
        answer = json.loads(data) if response.getheader('Content-Type', '').startswith('application/json') else None
        return response.status, response, answer
    finally:
        connection.close()


def assert_echo(path, host='localhost', headers=None):
    all_headers = dict(ECHO_HEADERS)
    all_headers.update(headers or {})
    status, _, answer = post(path, ECHO, all_headers, host=host)
    assert status == 200, 'echo answered %d: %r' % (status, answer)
    assert answer['result']['content'][0]['text'] == 'over the socket', answer


def connect_as(path, gid):
    """Whether uid 65534, with @gid as its only group (None: no group of
    its own), may connect to @path: a child process drops root and tries."""
    child = os.fork()
    if child == 0:
        code = 2
        try:
            os.setgroups([gid] if gid is not None else [])
            os.setgid(gid if gid is not None else OTHER_UID)
            os.setuid(OTHER_UID)
            with socket.socket(socket.AF_UNIX) as s:
                try:
                    s.connect(path)
                    code = 0
                except PermissionError:
                    code = 1
        finally:
            os._exit(code)
    _, status = os.waitpid(child, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) in (0, 1), 'the child failed: %r' % status
    return os.WEXITSTATUS(status) == 0


class Demo:
    """snodo-demo, waited for until it printed its address or exited."""

    def __init__(self, argv, env=None, **kwargs):
        self.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, env=env, **kwargs)
        self.line = self.process.stdout.readline().decode()

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            _, err = self.process.communicate(timeout=START_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate()
        return self.process.returncode, err.decode()

    def fail_status(self):
        """The exit status and standard error of a demo that must not start."""
        try:
            _, err = self.process.communicate(timeout=START_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.communicate()
            raise AssertionError('it started: %r' % self.line)
        return self.process.returncode, err.decode()


def a_group():
    """A group to give the socket: as root any other than root's, else the
    process's own."""
    if not AS_ROOT:
        return grp.getgrgid(os.getegid())
    for entry in grp.getgrall():
        if entry.gr_gid not in (0, OTHER_UID) and entry.gr_name != 'nogroup':
            return entry
    raise AssertionError('no group to use')


def check_mode_and_group(demo, workdir):
    path = os.path.join(workdir, 'mode.sock')
    group = a_group()
    old = os.umask(0o022)
    try:
        plain = Demo([demo, '--http-unix=' + path])
        try:
            assert plain.line.startswith('http+unix://'), plain.line
            plain_mode = stat.S_IMODE(os.lstat(path).st_mode)
            denied = AS_ROOT and not connect_as(path, os.lstat(path).st_gid)
        finally:
            plain.stop()
        served = Demo([demo, '--http-unix=' + path, '--http-unix-mode=0660', '--http-unix-group=' + group.gr_name])
    finally:
        os.umask(old)
    try:
        assert served.line.startswith('http+unix://'), served.line
        info = os.lstat(path)
        assert stat.S_ISSOCK(info.st_mode)
        assert stat.S_IMODE(info.st_mode) == 0o660, 'mode %o' % stat.S_IMODE(info.st_mode)
        assert info.st_gid == group.gr_gid, 'group %d, not %d' % (info.st_gid, group.gr_gid)
        assert_echo(path)
        detail = 'without the options: %04o; with them: 0660, group %s' % (plain_mode, group.gr_name)
        if AS_ROOT:
            assert denied, 'a member of the group connected to a socket made under umask 022'
            assert connect_as(path, group.gr_gid), 'a member of %s could not connect' % group.gr_name
            assert not connect_as(path, None), 'a user outside %s connected' % group.gr_name
            detail += '; uid %d in the group connects, outside it not (nor to the 0755 socket)' % OTHER_UID
        else:
            detail += '; not root: no other user to connect as'
    finally:
        status, err = served.stop()
    assert status == 0, 'exit status %d: %s' % (status, err)
    assert not os.path.exists(path), 'the socket was left behind'
    return detail


def check_stale(demo, workdir):
    path = os.path.join(workdir, 'stale.sock')
    left = socket.socket(socket.AF_UNIX)
    left.bind(path)
    left.listen()
    left.close()
    assert stat.S_ISSOCK(os.lstat(path).st_mode)
    served = Demo([demo, '--http-unix=' + path])
    try:
        assert served.line.startswith('http+unix://'), 'no address: %r %r' % (served.line, served.fail_status())
        assert_echo(path)
    finally:
        status, err = served.stop()
    assert status == 0, 'exit status %d: %s' % (status, err)
    return 'served on the path of a socket nobody listened on'


def check_live(demo, workdir):
    path = os.path.join(workdir, 'live.sock')
    other = socket.socket(socket.AF_UNIX)
    other.bind(path)
    other.listen()
    try:
        status, err = Demo([demo, '--http-unix=' + path]).fail_status()
        assert status == 3, 'exit status %d: %s' % (status, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and 'already listens' in lines[0] and path in lines[0], err
        # The other server's socket still works.
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(path)
            other.accept()[0].close()
        return lines[0]
    finally:
        other.close()
        os.unlink(path)


def check_not_socket(demo, workdir):
    path = os.path.join(workdir, 'notes.txt')
    with open(path, 'w') as f:
        f.write('keep me\n')
    status, err = Demo([demo, '--http-unix=' + path]).fail_status()
    assert status == 3, 'exit status %d: %s' % (status, err)
    assert 'not a socket' in err and path in err, err
    with open(path) as f:
        assert f.read() == 'keep me\n', 'the file changed'
    return err.strip()


def check_bad_options(demo, workdir):
    path = os.path.join(workdir, 'bad.sock')
    for argv in (['--http-unix=' + path, '--http-unix-mode=999'], ['--http-unix=' + path, '--http-unix-mode=rw'],
                 ['--http-unix-mode=0660'], ['--http=0', '--http-unix-group=www-data']):
        status, err = Demo([demo] + argv).fail_status()
        assert status == 2 and err.count('\n') == 1, '%s: status %d, %r' % (' '.join(argv), status, err)
    assert not os.path.exists(path)
    return 'exit status 2 for a mode that is not octal or out of range, and for either option without --http-unix'


# ---- The systemd units ---------------------------------------------------------

def read_unit(path):
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str
    parser.read(path)
    return parser


def check_units_verify(data, demo, workdir):
    verify = shutil.which('systemd-analyze')
    if verify is None:
        return None
    folder = os.path.join(workdir, 'units')
    os.makedirs(folder, exist_ok=True)
    for name in ('snodo-demo.socket', 'snodo-demo.service'):
        with open(os.path.join(data, 'deploy', name)) as f:
            text = f.read()
        # The one placeholder: where snodo-demo is.
        with open(os.path.join(folder, name), 'w') as f:
            f.write(text.replace('/usr/bin/snodo-demo', os.path.abspath(demo)))
    result = subprocess.run([verify, 'verify', '--man=no', 'snodo-demo.socket', 'snodo-demo.service'],
                            cwd=folder, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and not result.stderr.strip() and not result.stdout.strip(), \
        'status %d:\n%s%s' % (result.returncode, result.stdout, result.stderr)
    return 'no warning'


def check_activation(data, demo, workdir):
    socket_unit = read_unit(os.path.join(data, 'deploy', 'snodo-demo.socket'))
    service_unit = read_unit(os.path.join(data, 'deploy', 'snodo-demo.service'))
    listen = socket_unit['Socket']['ListenStream']
    mode = int(socket_unit['Socket']['SocketMode'], 8)
    group_name = socket_unit['Socket']['SocketGroup']
    limit = int(service_unit['Service']['LimitNOFILE'])
    assert limit >= 65536, 'LimitNOFILE=%d' % limit
    assert listen.startswith('/'), listen
    # The placeholders: the socket's path and group, snodo-demo, the
    # credentials folder (%d) where LoadCredential= puts the token file.
    path = os.path.join(workdir, 'activated.sock')
    group = grp.getgrnam(group_name) if AS_ROOT and group_name in [g.gr_name for g in grp.getgrall()] else a_group()
    credentials = os.path.join(workdir, 'credentials')
    os.makedirs(credentials, exist_ok=True)
    with open(os.path.join(credentials, 'tokens'), 'w') as f:
        f.write('tok-ops ops mcp:tools\n')
    argv = shlex.split(service_unit['Service']['ExecStart'].replace('%d', credentials))
    assert argv[0] == '/usr/bin/snodo-demo', argv[0]
    argv[0] = demo
    assert not any(a.startswith('--http') for a in argv), 'the service names its own socket: %r' % argv

    # As systemd makes it: bound, given its group and mode, listening.
    listening = socket.socket(socket.AF_UNIX)
    listening.bind(path)
    os.chown(path, -1, group.gr_gid)
    os.chmod(path, mode)
    listening.listen(128)
    fd = listening.fileno()
    served = Demo(['/bin/sh', '-c', 'LISTEN_PID=$$ LISTEN_FDS=1 exec "$@"', 'sh'] + argv,
                  pass_fds=(fd, 3), preexec_fn=lambda: os.dup2(fd, 3))
    listening.close()
    try:
        assert served.line.startswith('http+unix://'), 'no address: %r %r' % (served.line, served.fail_status())
        status, response, answer = post(path, ECHO, ECHO_HEADERS, host='mcp.example.com')
        challenge = response.getheader('WWW-Authenticate', '')
        assert status == 401, 'without a token: %d' % status
        assert 'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"' in challenge, \
            challenge
        assert_echo(path, host='mcp.example.com', headers={'Authorization': 'Bearer tok-ops'})
        detail = ('ListenStream=%s SocketMode=%04o SocketGroup=%s (here %s), LimitNOFILE=%d; 401 names the https '
                  'metadata, a token is served' % (listen, mode, group_name, group.gr_name, limit))
        if AS_ROOT:
            assert connect_as(path, group.gr_gid), 'a member of %s could not connect' % group.gr_name
            assert not connect_as(path, None), 'a user outside %s connected' % group.gr_name
            detail += '; uid %d in the group connects, outside it not' % OTHER_UID
    finally:
        status, err = served.stop()
    assert status == 0, 'exit status %d: %s' % (status, err)
    return detail


def main():
    demo = os.environ.get('SNODO_DEMO')
    data = os.environ.get('SNODO_DATA') or os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data')
    if not demo:
        print('1..0 # SKIP SNODO_DEMO is not set')
        return 0
    help_text = subprocess.run([demo, '--help-all'], capture_output=True, text=True, timeout=20).stdout
    if '--http-unix=' not in help_text:
        print('1..0 # SKIP snodo-demo was built without its HTTP transport')
        return 0
    workdir = tempfile.mkdtemp(prefix='snodo-unix-')
    # Other users reach the sockets: their own mode decides.
    os.chmod(workdir, 0o755)
    try:
        run_check('--http-unix-mode and --http-unix-group give the socket its mode and group, '
                  'which decide who may connect', check_mode_and_group, demo, workdir)
        run_check('a socket file nobody listens on is replaced and served', check_stale, demo, workdir)
        run_check('a socket another server listens on is refused (status 3) and keeps working',
                  check_live, demo, workdir)
        run_check('a file that is not a socket is refused (status 3) and left alone', check_not_socket, demo, workdir)
        run_check('a bad --http-unix-mode, or either option without --http-unix, is exit status 2',
                  check_bad_options, demo, workdir)
        if shutil.which('systemd-analyze') is None:
            skip('systemd-analyze verify accepts data/deploy/snodo-demo.socket and .service',
                 'systemd-analyze is not installed')
        else:
            run_check('systemd-analyze verify accepts data/deploy/snodo-demo.socket and .service',
                      check_units_verify, data, demo, workdir)
        run_check('snodo-demo serves a socket made and passed as snodo-demo.socket says, with the command '
                  'line of snodo-demo.service', check_activation, data, demo, workdir)
    finally:
        if all(results):
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            print('# kept ' + workdir)
    return 0


if __name__ == '__main__':
    status = 1
    try:
        status = main()
    finally:
        print('1..%d' % len(results))
    sys.exit(status if status else (0 if all(results) else 1))
