#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
#
# capture_server.py DIR [MODE] - a stand-in for Grafana Pyroscope's
# ingest API on loopback, for tests/push/test_push.sh.  Standard library
# only.
#
# It listens on 127.0.0.1, an ephemeral port, and writes the port to
# DIR/port once it listens.  Every request is checked against the API
# that Pyroscope documents (pkg/ingester/pyroscope/ingest_handler.go,
# api/model/labelset): POST /ingest; name = APP.TYPE{k=v,...} with
# Pyroscope's characters (labelset.Parse takes values verbatim: no
# quotes); from and until whole UNIX seconds, from < until; format=pprof;
# sampleRate a positive integer; the labels host, kernel_release, arch,
# process present; a gzipped body.  A request that breaks a rule gets 400
# and a line "INVALID why" in DIR/log.
#
# The answer, by MODE:
#   ok          200 to every valid request (the default)
#   fail:N      500 to the first N requests, then 200
#   refuse      400 to every request, valid or not
#   hang        never answers (the connection stays open)
# Each answered request is one line of DIR/log, tab-separated: its
# number, the status, name, from, until, sampleRate; a valid one's body
# is DIR/N.pb.gz.
import http.server
import os
import re
import sys
import threading
import time
import urllib.parse

DIR = sys.argv[1]
MODE = sys.argv[2] if len(sys.argv) > 2 else "ok"
NAME_RE = re.compile(r"^([A-Za-z0-9_./-]+)\.(cpu|off_cpu)\{(.*)\}$")
LABEL_RE = re.compile(r"^([A-Za-z0-9_.]+)=([^,{}=]+)$")
REQUIRED = ("host", "kernel_release", "arch", "process")
lock = threading.Lock()
count = 0


def check(path, query, headers, body):
    if path != "/ingest":
        return "path %r is not /ingest" % path
    q = urllib.parse.parse_qs(query, keep_blank_values=True, strict_parsing=True)
    for k, v in q.items():
        if len(v) != 1:
            return "parameter %s given %d times" % (k, len(v))
    for k in ("name", "from", "until", "format", "sampleRate"):
        if k not in q:
            return "no %s" % k
    m = NAME_RE.match(q["name"][0])
    if not m:
        return "name %r is not APP.cpu{...} or APP.off_cpu{...}" % q["name"][0]
    labels = {}
    for kv in m.group(3).split(","):
        lm = LABEL_RE.match(kv)
        if not lm:
            return "label %r is not k=v" % kv
        if lm.group(1) in labels:
            return "label %s twice" % lm.group(1)
        labels[lm.group(1)] = lm.group(2)
    for k in REQUIRED:
        if k not in labels:
            return "no label %s" % k
    if not all(re.fullmatch(r"[0-9]+", q[k][0]) for k in ("from", "until")):
        return "from/until are not UNIX seconds"
    if int(q["from"][0]) >= int(q["until"][0]):
        return "from is not before until"
    if q["format"][0] != "pprof":
        return "format is not pprof"
    if not re.fullmatch(r"[1-9][0-9]*", q["sampleRate"][0]):
        return "sampleRate is not a positive integer"
    if headers.get("Content-Type") != "application/octet-stream":
        return "Content-Type %r" % headers.get("Content-Type")
    if body[:2] != b"\x1f\x8b":
        return "the body is not gzipped"
    return None


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body are two writes: without this, the body waits for
    # the client's delayed ACK, 40 ms a request.
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def do_POST(self):
        global count
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        if MODE == "hang":
            while True:
                time.sleep(3600)
        url = urllib.parse.urlsplit(self.path)
        why = check(url.path, url.query, self.headers, body)
        q = urllib.parse.parse_qs(url.query)
        with lock:
            count += 1
            n = count
            status = 200
            if why:
                status = 400
            elif MODE == "refuse":
                status = 400
            elif MODE.startswith("fail:") and n <= int(MODE[5:]):
                status = 500
            with open(os.path.join(DIR, "log"), "a") as log:
                if why:
                    log.write("INVALID %s\n" % why)
                log.write("%d\t%d\t%s\t%s\t%s\t%s\n" % (
                    n, status, q.get("name", [""])[0],
                    q.get("from", [""])[0], q.get("until", [""])[0],
                    q.get("sampleRate", [""])[0]))
            if status == 200:
                with open(os.path.join(DIR, "%d.pb.gz" % n), "wb") as f:
                    f.write(body)
        text = b"ok\n" if status == 200 else b"no\n"
        self.send_response(status)
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        self.wfile.write(text)

    do_GET = do_PUT = do_DELETE = lambda self: self.send_error(405)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


srv = Server(("127.0.0.1", 0), Handler)
with open(os.path.join(DIR, "port.tmp"), "w") as f:
    f.write("%d\n" % srv.server_address[1])
os.rename(os.path.join(DIR, "port.tmp"), os.path.join(DIR, "port"))
srv.serve_forever()
