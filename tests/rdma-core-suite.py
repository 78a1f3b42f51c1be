#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Run rdma-core's own test suite on one RDMA device and print KTAP.

    rdma-core-suite.py --suite DIR --dev DEV [options]

DIR is a copy of rdma-core's tests (Debian: /usr/share/doc/rdma-core/tests,
gunzipped) named "tests", as run_tests.py wants it.  Every test of the
suite (run_tests.py --list-tests) runs as run_tests.py --dev DEV would run
it, in a child interpreter that reports each result as it comes; a test
that runs longer than --timeout seconds is ended (the child dumps every
thread's stack and exits; its process group is killed), reported as an
ERROR ("timed out"), and the run goes on in a new child with the tests
after it.  So a test that cannot pass fails, and none hangs the run.

KTAP: one result per test, named by its id
(tests.test_cq.CQTest.test_create_cq): "ok", "ok ... # SKIP reason",
"not ok" for a FAIL, an ERROR or a time-out (with the traceback as
comments).  --xfail ID=ERE marks a known failure of the device (rdma_rxe):
"ok ... # XFAIL" when the failure's text matches ERE, "not ok ... # XPASS"
when the test passes, "not ok" otherwise.  --skips FILE classifies the
skips by reason (see rdma-core-suite.skips); with --strict-skips a skip no
line of FILE explains fails.  The summary comments at the end give the
counts and the skips grouped by class and reason.  Exit status 0 when no
result is "not ok".
"""

import argparse
import faulthandler
import json
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from importlib.machinery import SourceFileLoader


def load_suite(suite_dir, dev):
    """Import the suite as run_tests.py does; returns the 'tests' package."""
    sys.path.insert(0, suite_dir)
    sys.argv = [sys.argv[0], '--dev', dev]
    from args_parser import parser  # noqa: E402 (needs the path above)
    parser.parse_args()
    return SourceFileLoader('tests', os.path.join(suite_dir, '__init__.py')).load_module()


def flatten(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from flatten(t)
        else:
            yield t


def list_tests(pkg):
    loader = unittest.TestLoader()
    ids = []
    for mod in pkg.__test_modules__:
        ids.extend(t.id() for t in flatten(loader.loadTestsFromModule(mod)))
    return ids


# --- the child: runs tests, one JSON line per event on the status fd --------

class StatusResult(unittest.TestResult):
    def __init__(self, status, outdir):
        super().__init__()
        self.status = status
        self.outdir = outdir
        self.t0 = 0.0

    def emit(self, **ev):
        self.status.write(json.dumps(ev) + '\n')
        self.status.flush()

    def _redirect(self, path):
        sys.stdout.flush()
        sys.stderr.flush()
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)

    def startTest(self, test):
        super().startTest(test)
        self._redirect(os.path.join(self.outdir, test.id()))
        self.emit(ev='start', id=test.id())
        self.t0 = time.monotonic()
        faulthandler.dump_traceback_later(self.timeout, exit=True)

    def stopTest(self, test):
        faulthandler.cancel_dump_traceback_later()
        super().stopTest(test)

    def _end(self, test, st, text=''):
        self.emit(ev='end', id=test.id(), st=st, text=text,
                  secs=round(time.monotonic() - self.t0, 2))

    def addSuccess(self, test):
        self._end(test, 'ok')

    def addFailure(self, test, err):
        self._end(test, 'FAIL', self._exc_info_to_string(err, test))

    def addError(self, test, err):
        self._end(test, 'ERROR', self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        self._end(test, 'SKIP', str(reason))

    def addExpectedFailure(self, test, err):
        self._end(test, 'ok', 'expected failure: ' + self._exc_info_to_string(err, test))

    def addUnexpectedSuccess(self, test):
        self._end(test, 'FAIL', 'unexpected success')

    def addSubTest(self, test, subtest, err):
        if err is not None:
            st = 'FAIL' if issubclass(err[0], test.failureException) else 'ERROR'
            self._end(test, st, f'{subtest}: ' + self._exc_info_to_string(err, test))


def child(args):
    pkg = load_suite(args.suite, args.dev)
    status = os.fdopen(args.status_fd, 'w')
    loader = unittest.TestLoader()
    suite = unittest.TestSuite()
    result = StatusResult(status, args.outdir)
    for tid in args.ids:
        # The package is sys.modules['tests'], so the ids resolve from it.
        tests = list(flatten(loader.loadTestsFromName(tid)))
        if [t.id() for t in tests] == [tid]:
            suite.addTests(tests)
        else:
            result.emit(ev='start', id=tid)
            result.emit(ev='end', id=tid, st='ERROR', secs=0,
                        text='unittest could not load it: ' +
                        '; '.join(str(getattr(t, '_exception', t)) for t in tests))
    StatusResult.timeout = args.timeout
    # faulthandler writes the stacks to the test's output (fd 2).
    faulthandler.enable(file=sys.stderr, all_threads=True)
    suite.run(result)
    status.write(json.dumps({'ev': 'done'}) + '\n')
    status.flush()
    sys.stdout.flush()
    os._exit(0)


# --- the parent: children, time limits, KTAP --------------------------------

def kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


# The fixture errors (setUpClass, tearDownClass, ...) no test of the plan
# reported.
FIXTURE_ERRORS = []


def run_children(args, ids, outdir):
    """Yields (id, status, text, secs) for every id, in order."""
    todo = list(ids)
    while todo:
        rfd, wfd = os.pipe()
        cmd = [sys.executable, os.path.abspath(__file__), '--child',
               '--suite', args.suite, '--dev', args.dev,
               '--timeout', str(args.timeout), '--status-fd', str(wfd),
               '--outdir', outdir, '--'] + todo
        proc = subprocess.Popen(cmd, pass_fds=(wfd,), start_new_session=True,
                                stdin=subprocess.DEVNULL,
                                stdout=open(os.path.join(outdir, '.child'), 'ab'),
                                stderr=subprocess.STDOUT)
        os.close(wfd)
        current = None
        fixture = []
        started = time.monotonic()
        done = False
        buf = b''
        while not done:
            # The child's own watchdog ends a hung test after --timeout;
            # this one ends a child that cannot even do that.  A child that
            # exited is not waited for further (a process it forked may
            # still hold the pipe).
            if b'\n' not in buf:
                r, _, _ = select.select([rfd], [], [], 1)
                if not r:
                    if proc.poll() is not None:
                        break
                    if time.monotonic() - started > args.timeout + 30:
                        kill_group(proc)
                        break
                    continue
                chunk = os.read(rfd, 65536)
                if not chunk:
                    break
                buf += chunk
                continue
            line, buf = buf.split(b'\n', 1)
            ev = json.loads(line)
            if ev['ev'] == 'start':
                current = ev['id']
                started = time.monotonic()
            elif ev['ev'] == 'end' and ev['id'] in todo:
                todo.remove(ev['id'])
                yield ev['id'], ev['st'], ev['text'], ev['secs']
                current = None
                started = time.monotonic()
            elif ev['ev'] == 'end':
                # Not a test of the plan: a setUpClass, tearDownClass or
                # module fixture that failed.  Its tests that never start
                # are errors that say so; one whose tests all ran (a
                # tear-down) fails the run after the results (never a
                # result beyond the plan).
                fixture.append(f'{ev["id"]}: {ev["st"]}: {ev["text"]}')
                FIXTURE_ERRORS.append(fixture[-1])
            elif ev['ev'] == 'done':
                done = True
        try:
            rc = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            kill_group(proc)
            rc = proc.wait(timeout=30)
        kill_group(proc)
        os.close(rfd)
        if current is not None:
            todo.remove(current)
            secs = round(time.monotonic() - started, 2)
            why = (f'timed out after {args.timeout} s (every thread\'s stack is in the output)'
                   if secs >= args.timeout else f'the test process died (exit status {rc})')
            yield current, 'ERROR', why, secs
        elif done:
            # Tests the suite never started (a class or module set-up failed).
            for tid in todo:
                yield tid, 'ERROR', 'never started by unittest\n' + '\n'.join(fixture), 0
            if todo:
                FIXTURE_ERRORS.clear()
            todo = []
        elif not done:
            for tid in todo[:1]:
                yield tid, 'ERROR', f'the test process died before it started (exit status {rc})', 0
                todo.remove(tid)


def load_skips(path):
    """Lines 'CLASS<TAB>ID_ERE<TAB>REASON_ERE<TAB>EXPLANATION'."""
    rules = []
    if not path:
        return rules
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            parts = line.split('\t')
            if len(parts) != 4:
                sys.exit(f'{path}:{n}: expected 4 tab-separated fields')
            rules.append((parts[0], re.compile(parts[1]), re.compile(parts[2]), parts[3]))
    return rules


def classify(rules, tid, reason):
    for cls, id_re, why_re, expl in rules:
        if id_re.search(tid) and why_re.search(reason):
            return cls, expl
    return None, None


def parent(args):
    pkg = load_suite(args.suite, args.dev)
    ids = list_tests(pkg)
    if args.select:
        ids = [t for t in ids if re.search(args.select, t)]
    if args.exclude:
        ids = [t for t in ids if not re.search(args.exclude, t)]
    xfail = {}
    for x in args.xfail:
        tid, _, ere = x.partition('=')
        xfail[tid] = re.compile(ere, re.S)
    rules = load_skips(args.skips)
    outdir = tempfile.mkdtemp(prefix='suite-')

    print('KTAP version 1')
    print(f'1..{len(ids)}')
    sys.stdout.flush()
    counts = {'ok': 0, 'FAIL': 0, 'ERROR': 0, 'SKIP': 0, 'XFAIL': 0, 'XPASS': 0}
    skips = {}
    notok = 0
    t0 = time.monotonic()
    for n, (tid, st, text, secs) in enumerate(run_children(args, ids, outdir), 1):
        counts[st] += 1
        directive = ''
        bad = st in ('FAIL', 'ERROR')
        if tid in xfail:
            if bad and xfail[tid].search(text):
                directive, bad = ' # XFAIL known failure of ' + args.dev, False
                counts['XFAIL'] += 1
            elif st == 'ok':
                directive, bad = ' # XPASS expected to fail on ' + args.dev, True
                counts['XPASS'] += 1
        if st == 'SKIP':
            cls, expl = classify(rules, tid, text)
            if cls is None:
                cls, expl = 'unclassified', 'no line of the skip list explains it'
                bad = bad or args.strict_skips
            skips.setdefault((cls, expl), []).append((tid, text))
            directive = f' # SKIP {text}'.replace('\n', ' ')
        if bad or st in ('FAIL', 'ERROR'):
            out = ''
            try:
                with open(os.path.join(outdir, tid), errors='replace') as f:
                    out = f.read()
            except OSError:
                pass
            print(f'# {st} after {secs} s: {tid}')
            for line in (text + '\n' + out[-6000:]).splitlines():
                print('# ' + line)
        elif args.verbose:
            print(f'# {st} in {secs} s')
        if bad:
            notok += 1
            print(f'not ok {n} {tid}{directive}')
        else:
            print(f'ok {n} {tid}{directive}')
        sys.stdout.flush()
    for err in FIXTURE_ERRORS:
        notok += 1
        print('# a fixture failed after its tests ran:')
        for line in err.splitlines():
            print('# ' + line)
    real = {k: v for k, v in counts.items()}
    print(f'# {args.dev}: {real["ok"]} ok, {real["FAIL"]} FAIL, {real["ERROR"]} ERROR, '
          f'{real["SKIP"]} skipped ({real["XFAIL"]} of the failures known, '
          f'{real["XPASS"]} known failures passed) in {round(time.monotonic() - t0)} s')
    print(f'# {args.dev}: skips by reason')
    for (cls, expl), lst in sorted(skips.items()):
        print(f'#   [{cls}] {expl}: {len(lst)}')
        for reason in sorted({r for _, r in lst}):
            print(f'#       "{reason}"')
    if args.counts:
        with open(args.counts, 'w') as f:
            json.dump({'dev': args.dev, 'counts': counts,
                       'skips': [{'class': c, 'why': e, 'tests': [t for t, _ in lst]}
                                 for (c, e), lst in sorted(skips.items())]}, f, indent=1)
    return 1 if notok else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--suite', required=True)
    ap.add_argument('--dev', required=True)
    ap.add_argument('--timeout', type=int, default=120, help='seconds a test may take')
    ap.add_argument('--select', help='only the tests whose id matches this ERE')
    ap.add_argument('--exclude', help='not the tests whose id matches this ERE')
    ap.add_argument('--xfail', action='append', default=[], metavar='ID=ERE')
    ap.add_argument('--skips', help='the skip classification file')
    ap.add_argument('--strict-skips', action='store_true')
    ap.add_argument('--counts', help='write the counts as JSON to this file')
    ap.add_argument('--verbose', action='store_true')
    ap.add_argument('--child', action='store_true', help=argparse.SUPPRESS)
    ap.add_argument('--status-fd', type=int, help=argparse.SUPPRESS)
    ap.add_argument('--outdir', help=argparse.SUPPRESS)
    ap.add_argument('ids', nargs='*', help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.suite = os.path.abspath(args.suite)
    if args.child:
        child(args)
    sys.exit(parent(args))


if __name__ == '__main__':
    main()
