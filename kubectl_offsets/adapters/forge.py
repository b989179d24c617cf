"""Pull requests (GitHub REST API) and merge requests (GitLab API) over urllib, with a token from the environment.

The token is sent only in a request header and never appears in output, logs, errors or the compare URL. Without a
token nothing is sent: the caller prints the compare URL for a person to open.

Endpoints (documented, and asserted by tests/integration/gitops/test_forge_contract.py):
- GitHub: ``GET  /repos/{owner}/{repo}/pulls?head={owner}:{branch}&state=open`` (an open PR for the branch?)
          ``POST /repos/{owner}/{repo}/pulls`` with ``{"title", "head", "base", "body"}``
- GitLab: ``GET  /projects/{url-encoded path}/merge_requests?source_branch={branch}&state=opened``
          ``POST /projects/{url-encoded path}/merge_requests`` with ``{"source_branch", "target_branch",
          "title", "description"}``
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from ..errors import ForbiddenError, InputError, OffsetsError

TOKEN_ENV = {"github": "GITHUB_TOKEN", "gitlab": "GITLAB_TOKEN"}
FORGE_URL_ENV = "KUBECTL_OFFSETS_FORGE_URL"


class ForgeError(OffsetsError):
    """The forge refused or failed the request."""


@dataclass(frozen=True)
class Remote:
    forge: str  # "github" or "gitlab"
    host: str
    project: str  # owner/repo, or group/subgroup/project

    @property
    def web(self) -> str:
        return f"https://{self.host}/{self.project}"

    def api_base(self, override: str | None = None) -> str:
        override = override or os.environ.get(FORGE_URL_ENV)
        if override:
            return override.rstrip("/")
        if self.forge == "github":
            return "https://api.github.com" if self.host == "github.com" else f"https://{self.host}/api/v3"
        return f"https://{self.host}/api/v4"


def parse_remote(url: str, forge: str | None = None) -> Remote:
    """``git@github.com:o/r.git``, ``https://gitlab.example/g/s/p.git``, ``ssh://git@host:22/o/r`` -> Remote."""
    m = re.match(r"^(?:[a-z+]+://)?(?:[^@/]+@)?([^/:]+)(?::\d+)?[:/](.+?)(?:\.git)?/?$", url)
    if not m:
        raise ForgeError(f"cannot tell the host and project from the remote URL {_redact(url)}",
                         advice="pass --forge github|gitlab and --forge-url")
    host, project = m.group(1), m.group(2)
    kind = forge or ("github" if "github" in host else "gitlab" if "gitlab" in host else None)
    if kind is None:
        raise ForgeError(f"cannot tell whether {host} is GitHub or GitLab", advice="pass --forge github|gitlab")
    return Remote(kind, host, project)


def check_api_url(url: str) -> None:
    """--forge-url names where the API is, never who we are: the token comes from the environment only, so a
    credential in the URL is refused (and never echoed)."""
    try:
        parts = urllib.parse.urlsplit(url)
        has_credentials = parts.username is not None or parts.password is not None
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError:
        raise InputError(f"--forge-url {_redact(url)[:80]} is not a valid URL",
                         advice="for example: https://github.example.com/api/v3") from None
    if has_credentials:
        raise InputError(f"--forge-url {_redact(url)[:80]} contains credentials",
                         advice=f"remove them; the token is read from {' or '.join(TOKEN_ENV.values())}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"--forge-url {_redact(url)[:80]} is not an http(s) URL",
                         advice="for example: https://github.example.com/api/v3")


def compare_url(remote: Remote, base: str, branch: str) -> str:
    """The page where a person opens the pull/merge request by hand (no token in it, ever)."""
    q = urllib.parse.quote
    if remote.forge == "github":
        return f"{remote.web}/compare/{q(base)}...{q(branch)}?expand=1"
    return (f"{remote.web}/-/merge_requests/new?merge_request%5Bsource_branch%5D={q(branch, safe='')}"
            f"&merge_request%5Btarget_branch%5D={q(base, safe='')}")


def token_for(remote: Remote) -> str | None:
    return os.environ.get(TOKEN_ENV[remote.forge]) or None


def open_request(remote: Remote, token: str, *, base: str, branch: str, title: str, body: str,
                 api: str | None = None) -> tuple[str, bool]:
    """Open a pull/merge request for ``branch`` unless one is already open; returns (web URL, created)."""
    if remote.forge == "github":
        return _github(remote, token, api, base, branch, title, body)
    return _gitlab(remote, token, api, base, branch, title, body)


def _github(remote: Remote, token: str, api: str | None, base: str, branch: str, title: str, body: str):
    root = f"{remote.api_base(api)}/repos/{remote.project}/pulls"
    owner = remote.project.split("/")[0]
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json",
               "X-GitHub-Api-Version": "2022-11-28"}
    query = urllib.parse.urlencode({"head": f"{owner}:{branch}", "state": "open"})
    existing = _call("GET", f"{root}?{query}", headers)
    if existing:
        return existing[0]["html_url"], False
    created = _call("POST", root, headers, {"title": title, "head": branch, "base": base, "body": body})
    return created["html_url"], True


def _gitlab(remote: Remote, token: str, api: str | None, base: str, branch: str, title: str, body: str):
    root = f"{remote.api_base(api)}/projects/{urllib.parse.quote(remote.project, safe='')}/merge_requests"
    headers = {"PRIVATE-TOKEN": token}
    query = urllib.parse.urlencode({"source_branch": branch, "state": "opened"})
    existing = _call("GET", f"{root}?{query}", headers)
    if existing:
        return existing[0]["web_url"], False
    created = _call("POST", root, headers, {"source_branch": branch, "target_branch": base, "title": title,
                                            "description": body})
    return created["web_url"], True


def _call(method: str, url: str, headers: dict[str, str], payload: Any = None) -> Any:
    data = None if payload is None else json.dumps(payload).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={
        **headers, "Content-Type": "application/json", "User-Agent": "kubectl-offsets"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        raise _http_error(method, url, error) from None
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", None) or type(error).__name__
        raise ForgeError(f"cannot reach {_host(url)}: {reason}", advice="check --forge-url and the network") from None


def _http_error(method: str, url: str, error: urllib.error.HTTPError) -> OffsetsError:
    try:
        message = json.loads(error.read() or b"{}").get("message")
    except (ValueError, AttributeError):
        message = None
    where = urllib.parse.urlsplit(url).path
    text = f"{method} {where} returned {error.code}" + (f": {message}" if message else "")
    if error.code in (401, 403):
        return ForbiddenError(text, advice="check that the token in the environment is valid and may open "
                                           "pull/merge requests in this project")
    return ForgeError(text, advice="the branch was pushed; open the request by hand with the compare URL")


def _redact(url: str) -> str:
    """A remote URL without credentials (``https://user:token@host`` -> ``https://***@host``)."""
    return re.sub(r"//[^@/]+@", "//***@", url)


def _host(url: str) -> str:
    """host[:port] of a URL, without any credentials it may carry."""
    try:
        parts = urllib.parse.urlsplit(url)
        return (parts.hostname or "?") + (f":{parts.port}" if parts.port else "")
    except ValueError:
        return "the forge"
