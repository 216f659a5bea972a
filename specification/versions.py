"""Which release of each README is vendored here: ``versions.json`` labels
every vendored README with its plugin, its version and where it was taken from,
and the SHA-256 of the file says exactly which text that is (a changed file
shows even when its label was not updated)."""

from __future__ import annotations

import hashlib
import importlib.resources
import json
from dataclasses import dataclass

__all__ = ["VendoredReadme", "vendored_readmes"]


@dataclass(frozen=True, slots=True)
class VendoredReadme:
    plugin: str
    #: The file's name beside this module.
    file: str
    version: str
    sha256: str


def vendored_readmes() -> tuple[VendoredReadme, ...]:
    """The labelled READMEs, in the order ``versions.json`` lists them."""
    folder = importlib.resources.files("dsh_spec")
    labels = json.loads(folder.joinpath("versions.json").read_text("utf-8"))
    return tuple(
        VendoredReadme(
            plugin=str(label["plugin"]),
            file=name,
            version=str(label["version"]),
            sha256=hashlib.sha256(folder.joinpath(name).read_bytes()).hexdigest(),
        )
        for name, label in labels.items()
    )
