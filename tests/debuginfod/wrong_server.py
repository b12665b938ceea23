#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# wrong_server.py PORTFILE FILE LOG - a debuginfod that answers every
# /buildid/ID/debuginfo and /buildid/ID/executable with FILE, whatever ID
# was asked: a wrong answer the symbolizer must refuse.  It listens on a
# free loopback port, writes the port to PORTFILE once it listens, and
# appends each request's path to LOG.  Stops on SIGTERM.
import http.server
import os
import re
import sys

portfile, answer, log = sys.argv[1:4]
PATH = re.compile(r"^/buildid/[0-9a-f]+/(debuginfo|executable)$")


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(log, "a") as f:
            f.write(self.path + "\n")
        if not PATH.match(self.path):
            self.send_error(404)
            return
        with open(answer, "rb") as f:
            data = f.read()
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, fmt, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
tmp = portfile + ".tmp"
with open(tmp, "w") as f:
    f.write("%d\n" % server.server_address[1])
os.rename(tmp, portfile)
server.serve_forever()
