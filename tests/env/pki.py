"""Throwaway PKI and credentials for the API server, made with the openssl CLI (no extra Python package).

- a CA that signs the serving certificate and the client certificates (`--client-ca-file`);
- a serving certificate for 127.0.0.1/localhost, so clients verify TLS for real;
- the service-account signing key pair (kube-apiserver refuses to start without one);
- a static token file (`--token-auth-file`) with random tokens.

EC P-256 keys: generating them is instant, unlike RSA on a busy 2-core machine. Tokens are secrets: they are
only written to 0600 files and never printed or logged.
"""
from __future__ import annotations

import csv
import io
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from .processes import run_checked

DAYS = "7"
EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]


@dataclass(frozen=True)
class Pki:
    dir: Path

    ca_crt = property(lambda self: self.dir / "ca.crt")
    ca_key = property(lambda self: self.dir / "ca.key")
    server_crt = property(lambda self: self.dir / "apiserver.crt")
    server_key = property(lambda self: self.dir / "apiserver.key")
    sa_key = property(lambda self: self.dir / "sa.key")
    sa_pub = property(lambda self: self.dir / "sa.pub")
    tokens_csv = property(lambda self: self.dir / "tokens.csv")
    log = property(lambda self: self.dir / "openssl.log")


def _openssl(pki: Pki, *args: str) -> None:
    run_checked("pki", ["openssl", *args], pki.log, timeout=60)


def create_pki(directory: Path) -> Pki:
    """CA, serving cert and service-account keys in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    os.chmod(directory, 0o700)
    pki = Pki(directory)
    _openssl(pki, "req", "-x509", *EC_KEY, "-keyout", str(pki.ca_key), "-out", str(pki.ca_crt), "-days", DAYS,
             "-subj", "/CN=kubectl-offsets-test-ca",
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    _issue(pki, pki.server_crt, pki.server_key, "/CN=kube-apiserver", "serverAuth",
           "subjectAltName=IP:127.0.0.1,DNS:localhost")
    _openssl(pki, "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-out", str(pki.sa_key))
    _openssl(pki, "pkey", "-in", str(pki.sa_key), "-pubout", "-out", str(pki.sa_pub))
    return pki


def _issue(pki: Pki, crt: Path, key: Path, subject: str, usage: str, *extra: str) -> None:
    # `req -x509 -CA` (OpenSSL 3) creates the key and signs in one step; explicit CA:FALSE keeps the config
    # file's v3_ca section from turning the leaf into a CA.
    addext = ["-addext", "basicConstraints=critical,CA:FALSE", "-addext", f"extendedKeyUsage={usage}",
              "-addext", "keyUsage=critical,digitalSignature,keyEncipherment"]
    for e in extra:
        addext += ["-addext", e]
    _openssl(pki, "req", "-x509", *EC_KEY, "-keyout", str(key), "-out", str(crt), "-days", DAYS,
             "-subj", subject, "-CA", str(pki.ca_crt), "-CAkey", str(pki.ca_key), *addext)


def issue_client_cert(pki: Pki, user: str, groups: tuple[str, ...] = ()) -> tuple[Path, Path]:
    """A client certificate for `user` (CN) in `groups` (O), as kube-apiserver's x509 authenticator reads them."""
    for name in (user, *groups):
        if not name or "/" in name or "," in name or "+" in name or "=" in name:
            raise ValueError(f"unsupported user/group name for a certificate subject: {name!r}")
    subject = f"/CN={user}" + "".join(f"/O={g}" for g in groups)
    stem = "client-" + "-".join(s.replace(":", "_") for s in (user, *groups))
    crt, key = pki.dir / f"{stem}.crt", pki.dir / f"{stem}.key"
    if not crt.exists():
        _issue(pki, crt, key, subject, "clientAuth")
    return crt, key


def write_token_file(pki: Pki, users: dict[str, tuple[str, ...]]) -> dict[str, str]:
    """Write the static token file for {user: groups}; return {user: token}. Never log the result."""
    tokens = {user: secrets.token_urlsafe(32) for user in users}
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    for user, groups in users.items():
        row = [tokens[user], user, f"uid-{user}"]
        if groups:
            row.append(",".join(groups))
        writer.writerow(row)
    write_private(pki.tokens_csv, buf.getvalue())
    return tokens


def write_private(path: Path, text: str) -> None:
    """Create a file readable only by us (it holds a secret), atomically."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)
