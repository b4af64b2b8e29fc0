"""Reading YAML input files into plain data, turning every failure into a user-facing `InputError`.

The loader is PyYAML's safe loader made strict for hostile or careless input:
- nesting deeper than `MAX_DEPTH` is refused from the event stream, before the (recursive, C-level) composer runs,
  so a 100,000-deep document is an error and not a segfault;
- aliases may not add more than `MAX_EXPANDED_NODES` values to the document ("billion laughs"); values
  written out are bounded by the file's size;
- a key given twice in one mapping is an error (YAML says keys are unique; PyYAML silently keeps the last);
- integers longer than `MAX_INT_DIGITS` digits are refused (Python refuses to convert 4,300+ digit strings);
- YAML 1.1 sexagesimal numbers (`1:30` read as 90) and unquoted dates (`2026-11-23` read as a date object,
  which JSON cannot carry) stay strings, as the Pulumi CLI's YAML 1.2 reader keeps them;
- the line of every key is remembered (`accelfit.errors.remember_lines`), so problems can name it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, ClassVar

import yaml

from accelfit.errors import InputError, join_path, problem, remember_lines
from accelfit.inputfile import MAX_INT_DIGITS, read_text

MAX_DEPTH = 64
MAX_EXPANDED_NODES = 100_000

_INT = re.compile(r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$")
# YAML 1.1 floats without the sexagesimal form, plus the YAML 1.2 exponent form (`1e9`) that Pulumi reads as a number.
_FLOAT = re.compile(r"^(?:[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?\.[0-9][0-9_]*(?:[eE][-+]?[0-9]+)?"
                    r"|[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$")
_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"
_DROPPED_TAGS = {"tag:yaml.org,2002:timestamp", _INT_TAG, _FLOAT_TAG}


class _YamlProblem(Exception):
    def __init__(self, line: int | None, message: str, fix: str):
        super().__init__(message)
        self.line, self.message, self.fix = line, message, fix


def _line(node_or_event: Any) -> int | None:
    mark = getattr(node_or_event, "start_mark", None)
    return mark.line + 1 if mark is not None else None


class _StrictLoader(yaml.CSafeLoader if hasattr(yaml, "CSafeLoader") else yaml.SafeLoader):  # type: ignore[misc]
    yaml_implicit_resolvers: ClassVar[dict[Any, Any]] = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag not in _DROPPED_TAGS]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    yaml_constructors: ClassVar[dict[Any, Any]] = dict(yaml.SafeLoader.yaml_constructors)

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int | None] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # `<<: *defaults` may be overridden by the mapping's own keys
            key = self.construct_object(key_node, deep=True)
            try:
                hash(key)
            except TypeError:
                raise _YamlProblem(_line(key_node), "a mapping key must be a plain value, not a list or mapping",
                                   "write the key as text") from None
            if key in seen:
                raise _YamlProblem(_line(key_node), f"duplicate key {_short(key)} (first at line {seen[key]})",
                                   "give each key once; YAML keeps only one of them")
            seen[key] = _line(key_node)
        mapping: dict[Any, Any] = super().construct_mapping(node, deep=deep)  # PyYAML is untyped here (no stubs)
        return mapping

    def construct_yaml_int(self, node: Any) -> int:
        digits = sum(character.isalnum() for character in str(node.value))
        if digits > MAX_INT_DIGITS:
            raise _YamlProblem(_line(node), f"a {digits}-digit integer is far outside any allowed range",
                               "use a realistic number, or a size such as 70B")
        value: int = super().construct_yaml_int(node)  # PyYAML is untyped here (no stubs)
        return value


_StrictLoader.add_implicit_resolver(_INT_TAG, _INT, list("-+0123456789"))
_StrictLoader.add_implicit_resolver(_FLOAT_TAG, _FLOAT, list("-+0123456789."))
_StrictLoader.add_constructor(_INT_TAG, _StrictLoader.construct_yaml_int)


_TOO_DEEP_FIX = "flatten the document; specs and stack files need a few levels"
# libyaml (bundled in PyYAML wheels from 6.0.3 on) refuses flow collections nested 1,000 deep while scanning ahead,
# before our event check sees depth 65; its message names the same problem, so users get one message either way.
_LIBYAML_TOO_DEEP = "exceeded maximum nesting depth"


def _too_deep(line: int | None) -> _YamlProblem:
    return _YamlProblem(line, f"the document is nested too deep (more than {MAX_DEPTH} levels)", _TOO_DEEP_FIX)


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}..."


def _check_events(text: str) -> None:
    """Depth and alias expansion from the event stream, which libyaml produces without recursion."""
    sizes: dict[str, int] = {}
    stack: list[list[Any]] = []  # [anchor, expanded size so far]
    # Only values that aliases add count against MAX_EXPANDED_NODES: values written out are bounded by the file's
    # size (MAX_INPUT_BYTES), and a 10,000-server inventory writes some 230,000 of them.
    from_aliases = 0
    loader = _StrictLoader(text)
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                if len(stack) >= MAX_DEPTH:
                    raise _too_deep(_line(event))
                stack.append([event.anchor, 1])
                continue
            if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                anchor, size = stack.pop()
            elif isinstance(event, yaml.ScalarEvent):
                anchor, size = event.anchor, 1
            elif isinstance(event, yaml.AliasEvent):
                anchor, size = None, sizes.get(event.anchor, 1)
                from_aliases += size
            else:
                continue
            if anchor is not None:
                sizes[anchor] = size
            if stack:
                stack[-1][1] += size
            if from_aliases > MAX_EXPANDED_NODES:
                raise _YamlProblem(_line(event), f"aliases expand the document to more than {MAX_EXPANDED_NODES:,} "
                                   "values", "write the values out, or use fewer aliases (a 'billion laughs' "
                                   "document is refused)")
    finally:
        loader.dispose()


def _lines_of(node: Any) -> dict[str, int]:
    """Field path -> line of its key, for every mapping key reachable without following an alias twice."""
    lines: dict[str, int] = {}
    seen: set[int] = set()
    pending: list[tuple[Any, str]] = [(node, "")]
    while pending:
        current, path = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, yaml.MappingNode):
            for key_node, value_node in current.value:
                if isinstance(key_node, yaml.ScalarNode):
                    child = join_path(path, str(key_node.value))
                    lines.setdefault(child, key_node.start_mark.line + 1)
                    pending.append((value_node, child))
        elif isinstance(current, yaml.SequenceNode):
            for index, item in enumerate(current.value):
                child = join_path(path, index)
                lines.setdefault(child, item.start_mark.line + 1)
                pending.append((item, child))
    return lines


def read_yaml(path: Path | str) -> Any:
    """Parse a YAML file; a missing, unreadable, non-regular, oversized or invalid file becomes an InputError."""
    return parse_yaml(read_text(path), str(path))


def parse_yaml(text: str, source: str) -> Any:
    try:
        _check_events(text)
        loader = _StrictLoader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                return None
            remember_lines(source, _lines_of(node))
            return loader.construct_document(node)
        finally:
            loader.dispose()
    except _YamlProblem as error:
        where = f"line {error.line}" if error.line else ""
        raise InputError([problem(source, where, error.message, error.fix)]) from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        if _LIBYAML_TOO_DEEP in str(error.problem):
            where = f"line {mark.line + 1}" if mark else ""
            deep = _too_deep(None)
            raise InputError([problem(source, where, deep.message, deep.fix)]) from None
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "unknown position"
        raise InputError([problem(source, "", f"not valid YAML at {where}: {error.problem}",
                                  "fix the YAML syntax there (indentation, quotes, ':' after keys)")]) from None
    except yaml.YAMLError as error:
        raise InputError([problem(source, "", f"not valid YAML: {_short(str(error), 200)}",
                                  "fix the YAML syntax")]) from None
    except (RecursionError, ValueError) as error:
        raise InputError([problem(source, "", f"cannot read the YAML ({error.__class__.__name__})",
                                  "simplify the document")]) from None


def read_package_yaml(path: Path) -> dict[str, Any]:
    """A data file that ships inside accelfit (catalog, rules, pins): trusted, so read with the fast C loader when
    PyYAML has it, without the strict checks user files get. Each is a mapping at the top (its rows or facts under
    named keys, with their source)."""
    with path.open(encoding="utf-8") as handle:
        document = yaml.load(handle, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    if not isinstance(document, dict):
        raise ValueError(f"{path}: a shipped data file must be a mapping at the top, not {type(document).__name__}")
    return document
