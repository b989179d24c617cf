"""Fill the krew manifest for a release: version, and per platform the archive's uri and sha256.

    python packaging/fill_manifest.py --archives dist/ --base-url https://github.com/OWNER/REPO/releases/download/v0.1.0
    python packaging/fill_manifest.py --archives dist/ --partial -o /tmp/plugin.yaml   # only the archives present

Reads the committed plugin.yaml (the template: descriptions, caveats, platform selectors and bin) and writes it with
the version from the package and, for each platform entry, the archive named by its selector
(``kubectl-offsets-<version>-<os>-<arch>.tar.gz``/``.zip``) found in --archives. Every platform needs its archive
unless --partial, which keeps the entries whose archive is missing untouched (for local tests on one platform).
Comments and layout survive (ruamel.yaml round trip), so the released manifest reads like the committed one.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import sys
from pathlib import Path

from release_names import ROOT, archive_name, project_version

DEFAULT_REPO = "kubectl-offsets/kubectl-offsets"  # the workflow passes its own repository (GITHUB_REPOSITORY)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    version = args.version or project_version()
    base_url = args.base_url or f"https://github.com/{args.repo}/releases/download/v{version}"
    text = fill(Path(args.template).read_text(), version, Path(args.archives), base_url, partial=args.partial,
                homepage=f"https://github.com/{args.repo}")
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text)
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--archives", required=True, help="directory holding the release archives")
    parser.add_argument("--version", help="release version without the v (default: the package's __version__)")
    parser.add_argument("--repo", default=DEFAULT_REPO, help=f"GitHub owner/name (default: {DEFAULT_REPO})")
    parser.add_argument("--base-url", help="where the archives are downloaded from "
                                           "(default: the repo's GitHub release for the version)")
    parser.add_argument("--template", default=str(ROOT / "plugin.yaml"), help="the manifest to start from")
    parser.add_argument("--partial", action="store_true", help="leave platforms whose archive is missing as they are")
    parser.add_argument("-o", "--output", default="-", help="output file (default: stdout)")
    return parser


def fill(template: str, version: str, archives: Path, base_url: str, *, partial: bool = False,
         homepage: str | None = None) -> str:
    from ruamel.yaml import YAML  # a dependency of the project itself

    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 4096  # never fold a long uri
    manifest = yaml.load(template)
    spec = manifest["spec"]
    spec["version"] = f"v{version}"
    if homepage:
        spec["homepage"] = homepage
    missing = [name for name in (fill_platform(p, version, archives, base_url) for p in spec["platforms"]) if name]
    if missing and not partial:
        raise SystemExit(f"missing archives in {archives}: {', '.join(missing)}")
    out = io.StringIO()
    yaml.dump(manifest, out)
    return out.getvalue()


def fill_platform(platform, version: str, archives: Path, base_url: str) -> str | None:
    """Set uri and sha256 of one platform entry; returns the archive name when that archive is missing."""
    labels = platform["selector"]["matchLabels"]
    name = archive_name(version, labels["os"], labels["arch"])
    path = archives / name
    if not path.is_file():
        return name
    platform["uri"] = f"{base_url.rstrip('/')}/{name}"
    platform["sha256"] = sha256_of(path)
    return None


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


if __name__ == "__main__":
    sys.exit(main())
