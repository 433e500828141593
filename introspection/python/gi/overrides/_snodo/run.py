# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# server.run(): serves on standard input and output, or on Streamable
# HTTP, with the main loop, SIGINT/SIGTERM and the exit status handled,
# and the command-line options of snodo-demo that choose how.

import argparse
import os
import signal
import sys

from gi.repository import Gio, GLib

from . import context

__all__ = ['run']


def _options(prog):
    parser = argparse.ArgumentParser(prog=prog, description='An MCP server, on standard input and output '
                                     'unless --http or --http-unix is given.')
    parser.add_argument('--http', metavar='PORT', type=int,
                        help='serve Streamable HTTP on 127.0.0.1:PORT instead of standard I/O '
                             '(0: any free port; the URI is printed)')
    parser.add_argument('--http-address', metavar='ADDR',
                        help='serve HTTP on this IPv4 or IPv6 address instead of 127.0.0.1')
    parser.add_argument('--http-unix', metavar='PATH', help='serve HTTP on a Unix socket made at PATH instead')
    parser.add_argument('--allowed-hosts', metavar='LIST',
                        help='the Host names HTTP requests may use, separated by commas')
    parser.add_argument('--allowed-origins', metavar='LIST',
                        help='the Origins HTTP requests may come from, separated by commas')
    parser.add_argument('--instance-id', metavar='ID', help='start the HTTP session ids with ID and a dot')
    parser.add_argument('--handler-timeout', metavar='MS', type=int,
                        help='how long a tool may take to answer, in milliseconds, or 0 for no limit')
    parser.add_argument('--request-timeout', metavar='MS', type=int,
                        help='how long to wait for the client to answer a request of the server, in milliseconds')
    parser.add_argument('--protocol-versions', metavar='LIST',
                        help='the protocol versions to serve, separated by commas')
    parser.add_argument('--write-timeout', metavar='MS', type=int,
                        help='how long writing one message may take, in milliseconds')
    return parser


def _split(text):
    return [item.strip() for item in text.split(',') if item.strip()]


def _http_address(text):
    """(address, port) of 'HOST:PORT', '[V6]:PORT' or 'PORT'."""
    text = str(text)
    host, _, port = text.rpartition(':')
    host = host.strip('[]') or '127.0.0.1'
    if not port.isdigit() or int(port) > 65535:
        raise ValueError('%r is not HOST:PORT' % text)
    return host, int(port)


def run(server, http=None, argv=None):
    """Serves @server until the end of input (stdio) or SIGINT/SIGTERM.
    @http ('HOST:PORT', 'PORT' or a port number) serves Streamable HTTP
    instead; otherwise the command line decides (--http PORT, --http-unix
    PATH, ...: `--help` lists them; @argv is sys.argv[1:] by default, [] to
    read none). Returns 0; exits with status 1, after one line on stderr,
    when the output fails or HTTP cannot listen."""
    prog = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else 'server'
    options = _options(prog).parse_args(sys.argv[1:] if argv is None else argv)
    Snodo = context.Snodo

    # Standard output carries the protocol (or the URI): logs go to stderr.
    GLib.log_writer_default_set_use_stderr(True)
    if options.handler_timeout is not None:
        server.set_handler_timeout(options.handler_timeout)
    if options.request_timeout is not None:
        server.set_request_timeout(options.request_timeout)
    if options.protocol_versions is not None:
        server.set_protocol_versions(_split(options.protocol_versions))

    address = None
    if http is not None:
        try:
            address = _http_address(http)
        except ValueError as error:
            sys.stderr.write('%s: %s\n' % (prog, error))
            raise SystemExit(2) from None
    elif options.http is not None:
        address = (options.http_address or '127.0.0.1', options.http)
    elif options.http_address is not None:
        sys.stderr.write('%s: --http-address needs --http=PORT\n' % prog)
        raise SystemExit(2)

    loop = GLib.MainLoop()
    failure = []

    if address is not None or options.http_unix is not None:
        if not hasattr(Snodo, 'HttpTransport'):
            sys.stderr.write('%s: this Snodo was built without HTTP\n' % prog)
            raise SystemExit(1)
        transport = Snodo.HttpTransport.new(server)
        for name in ('allowed_hosts', 'allowed_origins'):
            value = getattr(options, name)
            if value is not None:
                getattr(transport, 'set_' + name)(_split(value))
        if options.instance_id is not None:
            transport.set_instance_id(options.instance_id)
        if options.write_timeout is not None:
            transport.set_write_timeout(options.write_timeout)
        try:
            if options.http_unix is not None:
                where = Gio.UnixSocketAddress.new(options.http_unix)
            else:
                where = Gio.InetSocketAddress.new_from_string(address[0], address[1])
                if where is None:
                    raise ValueError('%r is not an IP address' % address[0])
            transport.listen(where)
        except (GLib.Error, ValueError) as error:
            sys.stderr.write('%s: %s\n' % (prog, getattr(error, 'message', error)))
            raise SystemExit(1) from None
        if options.http_unix is not None:
            print('http+unix://%s%s' % (options.http_unix, transport.get_path()), flush=True)
        else:
            print(transport.dup_uri(), flush=True)

    else:
        transport = Snodo.StdioTransport.new_for_stdio(server)
        if options.write_timeout is not None:
            transport.set_write_timeout(options.write_timeout)

        def closed(_transport, error):
            # None after the end of input, once every answer is written.
            if error is not None:
                failure.append(error.message)
            loop.quit()
        transport.connect('closed', closed)
        transport.start()

    stopping = []

    def stop():
        # The first SIGINT or SIGTERM closes the transport, which ends the
        # loop; the sources stay until then, so that a second one is quiet.
        if not stopping:
            stopping.append(True)
            transport.close_async(None, lambda t, result: (t.close_finish(result), loop.quit()))
        return GLib.SOURCE_CONTINUE

    handlers = [GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, number, stop)
                for number in (signal.SIGINT, signal.SIGTERM)]
    try:
        loop.run()
    finally:
        for handler in handlers:
            GLib.source_remove(handler)
    if failure:
        sys.stderr.write('%s: %s\n' % (prog, failure[0]))
        raise SystemExit(1)
    return 0
