"""Read CloudFormation/SAM templates: YAML with the short tags (!Ref, !GetAtt, !If...) as their long forms."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


class CfnLoader(yaml.SafeLoader):
    """SafeLoader that reads `!Ref X` as {"Ref": "X"}, `!GetAtt A.B` as {"Fn::GetAtt": ["A", "B"]}, and so on."""


def _tag(loader: CfnLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    name = "Ref" if suffix == "Ref" else f"Fn::{suffix}"
    value: Any
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
        if suffix == "GetAtt":
            value = str(value).split(".", 1)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    return {name: value}


CfnLoader.add_multi_constructor("!", _tag)


def load_template(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.load(path.read_text(), Loader=CfnLoader)
    return loaded


def ref_target(value: dict[str, Any]) -> str:
    """The resource a !Ref or !GetAtt points at."""
    if "Ref" in value:
        return str(value["Ref"])
    return str(value["Fn::GetAtt"][0])
