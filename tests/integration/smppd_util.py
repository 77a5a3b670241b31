# SPDX-License-Identifier: BSD-3-Clause
"""Helpers of the hp-smppd tests (test_smpp_server_ops.py,
test_smpp_server_attacks.py): start the server on free ports with its
stderr in a file (a pipe nobody reads would stall it), raw PDUs built
here with struct from the v3.4 layouts (not with the code under test),
users-file hashes made with Python's hashlib (an independent PBKDF2)."""
import hashlib
import os
import socket
import struct
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("BUILD_DIR", os.path.join(ROOT, "build"))


def tool(name):
    path = os.path.join(BUILD, "smpp", "tools", name)
    assert os.access(path, os.X_OK), "%s not built (BUILD_DIR=%s)" % (path, BUILD)
    return path


def pbkdf2_line(system_id, password, iterations=1000, salt=b"0123456789abcdef"):
    """A users-file line with a PBKDF2-HMAC-SHA256 hash (hashlib's)."""
    dk = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, iterations)
    return "user %s $pbkdf2-sha256$%d$%s$%s" % (system_id, iterations, salt.hex(), dk.hex())


class Server:
    """hp-smppd running on free ports; stop() checks it exits 0."""

    def __init__(self, tmp_path, args=(), users="user esme1 secret1\nuser esme2 pw2\n",
                 tls=None, preexec_fn=None, name="smppd"):
        self.users = tmp_path / (name + "-users.conf")
        self.users.write_text(users)
        self.err_path = tmp_path / (name + ".stderr")
        cmd = [tool("hp-smppd"), "-c", str(self.users), "-p", "0"]
        if "-a" not in args:
            cmd += ["-a", "127.0.0.1"]
        if tls is not None:
            cmd += ["-S", "0", "-C", str(tls[0]), "-K", str(tls[1])]
        self.err = open(self.err_path, "w")
        self.p = subprocess.Popen(cmd + list(args), stdout=subprocess.PIPE, stderr=self.err,
                                  text=True, preexec_fn=preexec_fn)
        line = self.p.stdout.readline()
        assert "listening on " in line, line + self.stderr()
        self.port = int(line.rsplit(":", 1)[1])
        self.tls_port = None
        if tls is not None:
            line = self.p.stdout.readline()
            assert "TLS listening on " in line, line + self.stderr()
            self.tls_port = int(line.rsplit(":", 1)[1])

    def stderr(self):
        self.err.flush()
        return self.err_path.read_text()

    def cpu_seconds(self):
        """utime + stime of the server so far (/proc/PID/stat)."""
        with open("/proc/%d/stat" % self.p.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self, check=True):
        if self.p.poll() is None:
            self.p.terminate()
        rc = self.p.wait(timeout=15)
        self.err.close()
        if check:
            assert rc == 0, "hp-smppd exit %s\n%s" % (rc, self.err_path.read_text()[-3000:])


def connect(port, host="127.0.0.1", timeout=5):
    return socket.create_connection((host, port), timeout=timeout)


def pdu(cmd, body=b"", seq=1, status=0):
    return struct.pack(">IIII", 16 + len(body), cmd, status, seq) + body


def cs(s):
    return (s if isinstance(s, bytes) else s.encode()) + b"\0"


def bind(system_id, password, cmd=2, seq=1):
    """bind_transmitter (2), bind_receiver (1), bind_transceiver (9)."""
    return pdu(cmd, cs(system_id) + cs(password) + cs("") + bytes([0x34, 0, 0]) + cs(""), seq)


def submit(src="4670001", dst="4670002", text=b"hello", seq=2, reg=0, sched=b"", valid=b""):
    body = (cs("") + bytes([1, 1]) + cs(src) + bytes([1, 1]) + cs(dst) + bytes([0, 0, 0]) +
            cs(sched) + cs(valid) + bytes([reg, 0, 0, 0, len(text)]) + text)
    return pdu(4, body, seq)


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def read_pdu(s):
    """((length, id, status, seq), whole PDU), or None at the end."""
    hdr = recv_exact(s, 4)
    if hdr is None:
        return None
    n = struct.unpack(">I", hdr)[0]
    rest = recv_exact(s, n - 4)
    if rest is None:
        return None
    whole = hdr + rest
    return struct.unpack(">IIII", whole[:16]), whole


def closed_within(s, seconds):
    """True when the server closes s within seconds (PDUs before are read)."""
    s.settimeout(seconds)
    end = time.time() + seconds
    try:
        while time.time() < end:
            if read_pdu(s) is None:
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False
    return False


def cstr_at(b, off):
    end = b.index(b"\0", off)
    return b[off:end], end + 1
