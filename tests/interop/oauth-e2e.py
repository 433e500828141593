#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""`snodo call --http` signing in with a real authorization server.

    oauth-e2e.py NODE OIDC-PROVIDER-SCRIPT SNODO SNODO-DEMO [--secret-service]

oidc-provider.mjs (oidc-provider from npm) issues the tokens;
snodo-demo --http=0 requires them (mcp:read for every request, mcp:tools
for the tool whoami) and checks them at the provider's introspection
endpoint (--token-introspection, as the confidential client snodo-demo);
`snodo call --no-browser --credentials-dir` prints
the authorization URL on stderr, and this script is the browser: it
follows the URL with a cookie jar, posts the login and consent forms and
follows the redirect to the loopback URI snodo listens on. Checked: the
first call signs in (dynamic registration, PKCE, resource indicator), the
second reuses the stored token, a call once the access token is about to
expire refreshes it, a tool that needs another scope steps up, and two
calls started at once sign in once; snodo-demo refuses a token for another
audience, a made-up one and a revoked one. Sign-ins are kept in files
(--credentials-dir), or with --secret-service in the Secret Service
(snodo's default store when built with libsecret): a gnome-keyring-daemon
unlocked on the session bus, which must be a private one
(dbus-run-session). Output is TAP on stdout.
"""

import base64
import html
import http.cookiejar
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

# snodo refreshes an access token 60 s before it expires: these live 70 s,
# 10 s of use for snodo.
ACCESS_TOKEN_TTL = 70
FRESH_FOR = ACCESS_TOKEN_TTL - 60

node, provider_script, snodo, demo = sys.argv[1:5]
secret_service = sys.argv[5:] == ['--secret-service']
tmp = tempfile.mkdtemp(prefix='snodo-oauth-e2e-')
# The cross-process lock is in the runtime directory; the keyring's files
# in the data directory.
env = dict(os.environ, HOME=tmp, XDG_RUNTIME_DIR=os.path.join(tmp, 'run'), XDG_DATA_HOME=os.path.join(tmp, 'data'),
           XDG_CONFIG_HOME=os.path.join(tmp, 'config'))
os.mkdir(env['XDG_RUNTIME_DIR'], 0o700)
keyring = os.path.join(env['XDG_DATA_HOME'], 'keyrings', 'login.keyring')
issued_file = os.path.join(tmp, 'issued')
credentials = os.path.join(tmp, 'credentials')
open(issued_file, 'w').close()
# snodo-demo's client secret at the provider.
secret_file = os.path.join(tmp, 'introspection-secret')
with open(secret_file, 'w') as f:
    f.write(secrets.token_urlsafe(24) + '\n')

results = []


def check(name, ok, *diagnostics):
    results.append(ok)
    print(('ok' if ok else 'not ok') + f' {len(results)} - {name}', flush=True)
    if not ok:
        for d in diagnostics:
            for line in str(d).splitlines():
                print(f'# {line}', flush=True)


def bail(message):
    print(f'Bail out! {message}', flush=True)
    sys.exit(1)


installed = os.path.join(os.path.dirname(os.path.abspath(provider_script)), 'node_modules', 'oidc-provider',
                         'package.json')
if not os.path.isfile(installed):
    bail(f'{installed} is missing: run `npm ci --prefix tests/interop`')

if secret_service:
    if 'DBUS_SESSION_BUS_ADDRESS' not in os.environ:
        bail('--secret-service needs a private session bus: run under dbus-run-session')
    daemon = shutil.which('gnome-keyring-daemon')
    if daemon is None:
        bail('gnome-keyring-daemon is missing (Debian: gnome-keyring)')
    # It forks a daemon that lives as long as the bus.
    subprocess.run([daemon, '--unlock', '--components=secrets'], input='password', text=True, env=env,
                   stdout=subprocess.DEVNULL, check=True, timeout=30)
    print('# sign-ins are kept by gnome-keyring-daemon (the Secret Service)', flush=True)
else:
    print('# sign-ins are kept in files (--credentials-dir)', flush=True)

provider = subprocess.Popen([node, provider_script, issued_file, str(ACCESS_TOKEN_TTL), secret_file],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
issuer = provider.stdout.readline().strip()
if not issuer.startswith('http://127.0.0.1:'):
    bail(f'oidc-provider did not start (it printed “{issuer}”)')
print(f'# issuer {issuer}', flush=True)

with urllib.request.urlopen(f'{issuer}/.well-known/openid-configuration', timeout=30) as response:
    discovery = json.load(response)
introspection_endpoint = discovery.get('introspection_endpoint')
revocation_endpoint = discovery.get('revocation_endpoint')
if not introspection_endpoint or not revocation_endpoint:
    bail(f'oidc-provider offers no introspection or revocation endpoint: {discovery}')

demo_argv = [demo, '--http=0', f'--authorization-server={issuer}', f'--token-introspection={introspection_endpoint}',
             '--introspection-client-id=snodo-demo', f'--introspection-client-secret-file={secret_file}',
             '--required-scopes=mcp:read', '--tool-scope=whoami:mcp:tools']
demo2_proc = demo3_proc = None


def start_demo(*more):
    proc = subprocess.Popen(demo_argv + list(more), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    if not line.startswith('http://'):
        bail(f'snodo-demo did not start (it printed “{line}”)')
    return proc, line


demo_proc, url = start_demo()
print(f'# resource {url}', flush=True)


def cleanup():
    for p in (demo_proc, demo2_proc, demo3_proc, provider):
        if p is None:
            continue
        p.terminate()
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
    shutil.rmtree(tmp, ignore_errors=True)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def browse(authorization_url):
    """Completes a sign-in as a person in a browser would; returns what the
    loopback redirect URI answered, or raises."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect())
    method, target, body = 'GET', authorization_url, None
    forms_posted = []
    for _ in range(20):
        request = urllib.request.Request(target, data=body, method=method)
        try:
            response = opener.open(request, timeout=30)
            status, headers, page = response.status, response.headers, response.read().decode()
        except urllib.error.HTTPError as e:
            status, headers, page = e.code, e.headers, e.read().decode(errors='replace')
        if status in (302, 303):
            target = urllib.parse.urljoin(target, headers['Location'])
            method, body = 'GET', None
            continue
        if not target.startswith(issuer):
            # The loopback redirect URI that snodo listens on.
            if status != 200:
                raise RuntimeError(f'the redirect URI {target} answered {status}: {page[:300]}')
            return page, forms_posted
        if status != 200:
            raise RuntimeError(f'{target} answered {status}: {page[:500]}')
        form = re.search(r'<form[^>]*action="([^"]+)"', page)
        prompt = re.search(r'name="prompt" value="([a-z]+)"', page)
        if form is None or prompt is None:
            raise RuntimeError(f'{target}: no form: {page[:500]}')
        fields = {'prompt': prompt.group(1)}
        if prompt.group(1) == 'login':
            fields.update(login='ada', password='any')
        forms_posted.append(prompt.group(1))
        target = urllib.parse.urljoin(target, html.unescape(form.group(1)))
        method, body = 'POST', urllib.parse.urlencode(fields).encode()
    raise RuntimeError('too many redirects')


SIGN_IN = re.compile(r'^snodo: sign in to \S+ at (\S+)$', re.M)


def start_call(tool, arguments, server=None):
    store = [] if secret_service else [f'--credentials-dir={credentials}']
    return subprocess.Popen([snodo, 'call', f'--http={server or url}', '--no-browser', *store,
                             'tools/call', json.dumps({'name': tool, 'arguments': arguments})],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)


def run_call(tool, arguments):
    return finish_call(start_call(tool, arguments))


def finish_call(proc, deadline=60):
    """Waits for a snodo call, completing each sign-in it asks for; returns
    (exit status, stdout, stderr, authorization URLs, browser errors)."""
    urls, errors, err_lines = [], [], []

    def read_stderr():
        for line in proc.stderr:
            err_lines.append(line)
            m = SIGN_IN.match(line.rstrip('\n'))
            if m:
                urls.append(m.group(1))
                try:
                    browse(m.group(1))
                except Exception as e:  # reported through the checks
                    errors.append(f'{type(e).__name__}: {e}')

    # Standard error is this thread's alone (communicate() would read it
    # too).
    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    killer = threading.Timer(deadline, proc.kill)
    killer.start()
    out = proc.stdout.read()
    proc.wait()
    killer.cancel()
    reader.join(10)
    return proc.returncode, out, ''.join(err_lines), urls, errors


def issued_tokens():
    """The access tokens the provider issued, in order (dicts)."""
    with open(issued_file) as f:
        return [json.loads(line) for line in f if line.strip()]


def issued_grants():
    """The grants of the access tokens the provider issued, in order."""
    return [t['grant'] for t in issued_tokens()]


def resource_server_post(endpoint, fields):
    """POSTs a form to the provider as snodo-demo's client; the JSON answer
    (or None for an empty one)."""
    with open(secret_file) as f:
        secret = f.readline().strip()
    request = urllib.request.Request(endpoint, data=urllib.parse.urlencode(fields).encode(), method='POST')
    credentials_pair = f'{urllib.parse.quote("snodo-demo", safe="")}:{urllib.parse.quote(secret, safe="")}'
    request.add_header('Authorization', 'Basic ' + base64.b64encode(credentials_pair.encode()).decode())
    with urllib.request.urlopen(request, timeout=30) as response:
        body = response.read()
    return json.loads(body) if body.strip() else None


def whoami(server, token):
    """A 2026-07-28 tools/call of whoami to @server with the bearer @token:
    (HTTP status, the principal or None, the WWW-Authenticate error or None)."""
    body = json.dumps({'jsonrpc': '2.0', 'id': 1, 'method': 'tools/call', 'params': {
        'name': 'whoami', 'arguments': {}, '_meta': {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {}}}}).encode()
    request = urllib.request.Request(server, data=body, method='POST', headers={
        'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'whoami',
        'Authorization': f'Bearer {token}'})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, headers, page = response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as e:
        status, headers, page = e.code, e.headers, e.read().decode(errors='replace')
    principal = None
    if status == 200:
        try:
            principal = json.loads(page)['result']['structuredContent']['principal']
        except (ValueError, KeyError, TypeError):
            pass
    m = re.search(r'error="([^"]*)"', headers.get('WWW-Authenticate') or '')
    return status, principal, m.group(1) if m else None


def result_text(out):
    try:
        result = json.loads(out)
        return ' '.join(c.get('text', '') for c in result.get('content', []))
    except (ValueError, AttributeError):
        return None


try:
    keyring_size = os.path.getsize(keyring) if secret_service else 0

    # 1. The first call signs in.
    status, out, err, urls, errors = run_call('echo', {'text': 'first'})
    signed_in_by = time.monotonic()
    check('the first call asks for a sign-in once, at the issuer', len(urls) == 1 and urls[0].startswith(issuer + '/'),
          urls, err)
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(urls[0]).query) if urls else {}
    check('the authorization request has PKCE (S256) and the resource indicator',
          query.get('code_challenge_method') == ['S256'] and query.get('resource') == [url], query)
    check('the login and consent pages lead to snodo’s redirect URI', not errors, *errors)
    check('the first call succeeds with the token', status == 0 and 'first' in (result_text(out) or ''),
          f'status {status}', out, err)
    stored = os.listdir(credentials) if os.path.isdir(credentials) else []
    if secret_service:
        check('the sign-in is stored in the keyring, not in files',
              not stored and os.path.getsize(keyring) > keyring_size, stored, os.path.getsize(keyring))
    else:
        check('the sign-in is stored in --credentials-dir', len(stored) > 0, stored)
    check('the first call got one access token, from the authorization code', issued_grants() == ['authorization_code'],
          issued_grants())

    # 2. The second reuses the stored token.
    issued_before = issued_grants()
    status, out, err, urls, errors = run_call('echo', {'text': 'second'})
    check('a second call does not sign in again', not urls, urls, err)
    check('the second call uses the stored access token (none issued)', issued_grants() == issued_before,
          issued_grants()[len(issued_before):])
    check('the second call succeeds', status == 0 and 'second' in (result_text(out) or ''), f'status {status}', out, err)

    # 3. Once the access token is about to expire, a call refreshes it.
    # snodo-demo would still accept the old token (it has not expired
    # yet): what the provider issued tells whether snodo refreshed it.
    time.sleep(max(0, signed_in_by + FRESH_FOR + 1 - time.monotonic()))
    issued_before = issued_grants()
    status, out, err, urls, errors = run_call('echo', {'text': 'refreshed'})
    check('once the access token is about to expire, a call does not sign in again', not urls, urls, err)
    issued = issued_grants()[len(issued_before):]
    check('the access token was refreshed with the refresh token grant', issued == ['authorization_code refresh_token'], issued)
    check('the call with the refreshed token succeeds', status == 0 and 'refreshed' in (result_text(out) or ''),
          f'status {status}', out, err)

    # 4. A tool that needs another scope: step-up, one more sign-in.
    status, out, err, urls, errors = run_call('whoami', {})
    check('a tool that needs mcp:tools asks for a sign-in again (step-up)', len(urls) == 1, urls, err)
    step_up_scope = urllib.parse.parse_qs(urllib.parse.urlsplit(urls[0]).query).get('scope', [''])[0] if urls else ''
    check('the step-up asks for mcp:tools', 'mcp:tools' in step_up_scope.split(), step_up_scope)
    who = None
    try:
        who = json.loads(out).get('structuredContent')
    except (ValueError, AttributeError):
        pass
    check('whoami is served to the signed-in account with both scopes',
          status == 0 and who is not None and who.get('principal') == 'ada'
          and {'mcp:read', 'mcp:tools'} <= set(who.get('scopes', [])),
          f'status {status}', out, err, *errors)

    # 5. Two calls started at once to a server not signed in to yet (a
    # second snodo-demo, another resource): one sign-in.
    demo2_proc, url2 = start_demo()
    issued_before = issued_grants()
    procs = [start_call('echo', {'text': f'together {i}'}, url2) for i in range(2)]
    outcomes = [None, None]

    def finish(i):
        outcomes[i] = finish_call(procs[i])

    threads = [threading.Thread(target=finish, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    all_urls = [u for o in outcomes for u in o[3]]
    print(f'# tokens issued for the two calls: {issued_grants()[len(issued_before):]}', flush=True)
    check('two calls started at once sign in once between them', len(all_urls) == 1, all_urls,
          *[o[2] for o in outcomes])
    check('both calls started at once succeed',
          all(o[0] == 0 and f'together {i}' in (result_text(o[1]) or '') for i, o in enumerate(outcomes)),
          *[f'status {o[0]}: {o[1]} {o[2]}' for o in outcomes])

    # 5b. snodo proxy URL: a stdio server in front of the signed-in
    # server, which reuses what the calls stored; with nothing stored (a
    # new --credentials-dir), it signs in itself.
    def run_proxy(server, store):
        proc = subprocess.Popen([snodo, 'proxy', '--no-browser', *store, server],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=env)
        proc.stdin.write('\n'.join(json.dumps(m) for m in [
            {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize', 'params': {
                'protocolVersion': '2025-11-25', 'capabilities': {}, 'clientInfo': {'name': 'e2e', 'version': '1'}}},
            {'jsonrpc': '2.0', 'method': 'notifications/initialized'},
            {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/call', 'params': {
                'name': 'echo', 'arguments': {'text': 'proxied'}}}]) + '\n')
        proc.stdin.close()
        status, out, err, urls, errors = finish_call(proc)
        answers = {}
        for line in out.splitlines():
            try:
                answers[json.loads(line).get('id')] = json.loads(line)
            except ValueError:
                pass
        text = ' '.join(c.get('text', '') for c in answers.get(2, {}).get('result', {}).get('content', []))
        return status, text, err, urls, errors

    store = [] if secret_service else [f'--credentials-dir={credentials}']
    issued_before = issued_grants()
    status, text, err, urls, errors = run_proxy(url2, store)
    check('snodo proxy URL reuses the stored sign-in (none asked, no token issued)',
          not urls and issued_grants() == issued_before, urls, issued_grants()[len(issued_before):], err)
    check('a call through snodo proxy URL is answered', status == 0 and text == 'proxied', f'status {status}', text, err)
    if not secret_service:
        fresh = os.path.join(tmp, 'proxy-credentials')
        status, text, err, urls, errors = run_proxy(url2, [f'--credentials-dir={fresh}'])
        check('snodo proxy URL with nothing stored signs in once, at the issuer',
              len(urls) == 1 and urls[0].startswith(issuer + '/') and not errors, urls, err, *errors)
        check('the call through the proxy that signed in is answered, and the sign-in stored',
              status == 0 and text == 'proxied' and os.listdir(fresh), f'status {status}', text, err)

    # 6. What snodo-demo refuses: 401 invalid_token, checked at the provider.
    tokens = issued_tokens()
    for_url = [t for t in tokens if t['aud'] == url]
    for_url2 = [t for t in tokens if t['aud'] == url2]
    check('every access token was issued for its resource (aud)', len(for_url) >= 3 and len(for_url2) >= 1
          and len(for_url) + len(for_url2) == len(tokens), tokens)
    status, who, error = whoami(url, for_url[-1]['token'])
    check('a token issued for the resource is accepted, as its account', status == 200 and who == 'ada',
          status, who, error)
    status, who, error = whoami(url, for_url2[-1]['token'])
    check('a token for another audience (the second snodo-demo) is refused', status == 401
          and error == 'invalid_token', status, who, error)
    status, who, error = whoami(url, secrets.token_urlsafe(32))
    check('a made-up token is refused', status == 401 and error == 'invalid_token', status, who, error)

    # A revoked token, to a third snodo-demo of the same resource (its
    # cache is empty): the refreshed token of step 3, active until revoked.
    demo3_proc, url3 = start_demo(f'--resource={url}')
    revoked = [t for t in for_url if t['grant'].endswith('refresh_token')]
    answer = resource_server_post(introspection_endpoint, {'token': revoked[-1]['token']}) if revoked else None
    check('before it is revoked, the provider says the refreshed token is active',
          answer is not None and answer.get('active') is True, answer)
    status, who, error = whoami(url3, for_url[-1]['token'])
    check('a snodo-demo for the same resource accepts a token for it', status == 200 and who == 'ada',
          status, who, error)
    if revoked:
        resource_server_post(revocation_endpoint, {'token': revoked[-1]['token'], 'token_type_hint': 'access_token'})
    answer = resource_server_post(introspection_endpoint, {'token': revoked[-1]['token']}) if revoked else None
    status, who, error = whoami(url3, revoked[-1]['token'] if revoked else 'none')
    check('a revoked token is refused', answer == {'active': False} and status == 401 and error == 'invalid_token',
          answer, status, who, error)
finally:
    cleanup()

print(f'1..{len(results)}', flush=True)
sys.exit(0 if all(results) else 1)
