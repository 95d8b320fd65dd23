"""The API reference page's content, read from the OpenAPI document (:mod:`.openapi`): the one
source of truth, so an endpoint added to the document is on the page.  Pure: no IO, no Flask.

The page shows every operation (method, path, summary, auth, parameters, request body,
responses) and every component schema; a schema is a tree of :class:`Schema` nodes, a
``$ref`` a link to the schema it names (:attr:`Schema.ref`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

SCHEMA_PREFIX = "#/components/schemas/"
METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
"""The keys of an OpenAPI path item that are operations (in the order the page lists them)."""


@dataclass(frozen=True)
class Property:
    """A property of an object schema."""

    name: str
    required: bool
    schema: Schema


@dataclass(frozen=True)
class Schema:
    """A schema, readable: its type, what constrains it, its description, its parts."""

    type: str = ""
    """JSON type (``object``, ``array``, ``string``...); empty when the schema does not say."""
    ref: str | None = None
    """The component schema a ``$ref`` names (the page links it); the other fields are then empty."""
    facts: tuple[str, ...] = ()
    """Constraints in words: ``or null``, ``default 50``, ``≥ 1``, ``length ≤ 200``..."""
    enum: tuple[str, ...] = ()
    """The allowed values (as JSON text)."""
    pattern: str | None = None
    description: str = ""
    properties: tuple[Property, ...] = ()
    items: Schema | None = None
    """An array's item schema."""
    values: Schema | None = None
    """An object's ``additionalProperties`` schema (a map of string keys to these)."""
    one_of: tuple[Schema, ...] = ()

    @property
    def simple(self) -> bool:
        """Said in one line: no properties or alternatives, items (if any) simple too."""
        return (
            not self.properties
            and not self.one_of
            and (self.items is None or self.items.simple)
            and (self.values is None or self.values.simple)
        )


@dataclass(frozen=True)
class Parameter:
    name: str
    location: str
    """``path``, ``query``, ``header`` or ``cookie`` (OpenAPI's ``in``)."""
    schema: Schema
    required: bool
    description: str


@dataclass(frozen=True)
class Body:
    """A request or response body."""

    content_type: str
    schema: Schema
    """As written (often a ``$ref``)."""
    resolved: Schema | None
    """The schema a top-level ``$ref`` names, expanded (``None`` when not a ``$ref``)."""


@dataclass(frozen=True)
class Answer:
    """One response of an operation."""

    status: str
    description: str
    body: Body | None


@dataclass(frozen=True)
class Auth:
    """A security scheme an operation needs."""

    name: str
    how: str
    """How to send it, e.g. ``Authorization: Bearer <token>``."""
    description: str


@dataclass(frozen=True)
class Operation:
    method: str
    """Upper case: ``GET``."""
    path: str
    """As the document has it, relative to :attr:`Reference.base`."""
    url: str
    """The path as requested: the server's base URL and :attr:`path`."""
    anchor: str
    summary: str
    description: str
    auth: tuple[Auth, ...]
    """Empty: no credentials needed."""
    parameters: tuple[Parameter, ...]
    body: Body | None
    body_required: bool
    answers: tuple[Answer, ...]


@dataclass(frozen=True)
class Reference:
    """Everything the page shows."""

    title: str
    version: str
    openapi: str
    description: str
    base: str
    operations: tuple[Operation, ...]
    schemas: tuple[tuple[str, Schema], ...] = field(default=())


def schema_name(ref: str) -> str:
    """The component name of a local ``$ref`` (``#/components/schemas/Match`` → ``Match``);
    any other reference is kept whole."""
    return ref.removeprefix(SCHEMA_PREFIX) if ref.startswith(SCHEMA_PREFIX) else ref


def _json_text(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def _facts(raw: Mapping[str, Any]) -> tuple[str, ...]:
    facts: list[str] = []
    if raw.get("nullable"):
        facts.append("or null")
    for key, word in (("minimum", "≥"), ("maximum", "≤"), ("exclusiveMinimum", ">"), ("exclusiveMaximum", "<")):
        if key in raw and not isinstance(raw[key], bool):
            facts.append(f"{word} {raw[key]:,}" if isinstance(raw[key], int) else f"{word} {raw[key]}")
    for low, high, what in (("minLength", "maxLength", "length"), ("minItems", "maxItems", "items")):
        if low in raw and high in raw:
            facts.append(f"{what} {raw[low]}–{raw[high]}")
        elif low in raw:
            facts.append(f"{what} ≥ {raw[low]}")
        elif high in raw:
            facts.append(f"{what} ≤ {raw[high]}")
    if "default" in raw:
        facts.append(f"default {_json_text(raw['default'])}")
    if raw.get("additionalProperties") is False:
        facts.append("no other fields")
    if raw.get("format"):
        facts.append(f"format {raw['format']}")
    return tuple(facts)


def schema(raw: Any) -> Schema:
    """A schema object of the document as a :class:`Schema` tree (``$ref``: not expanded)."""
    if not isinstance(raw, Mapping):
        return Schema()
    if "$ref" in raw:
        return Schema(ref=schema_name(str(raw["$ref"])), description=str(raw.get("description", "")))
    required = set(raw.get("required") or ())
    props = raw.get("properties") or {}
    values = raw.get("additionalProperties")
    return Schema(
        type=str(raw.get("type", "")),
        facts=_facts(raw),
        enum=tuple(_json_text(v) for v in raw.get("enum") or ()),
        pattern=str(raw["pattern"]) if "pattern" in raw else None,
        description=str(raw.get("description", "")),
        properties=tuple(Property(str(k), k in required, schema(v)) for k, v in props.items()),
        items=schema(raw["items"]) if "items" in raw else None,
        values=schema(values) if isinstance(values, Mapping) else None,
        one_of=tuple(schema(s) for s in raw.get("oneOf") or raw.get("anyOf") or ()),
    )


def _body(content: Mapping[str, Any] | None, components: Mapping[str, Any]) -> Body | None:
    if not content:
        return None
    content_type, media = next(iter(content.items()))
    raw = media.get("schema") if isinstance(media, Mapping) else None
    shown = schema(raw)
    resolved = schema(components[shown.ref]) if shown.ref is not None and shown.ref in components else None
    return Body(str(content_type), shown, resolved)


def _auth(requirements: Any, schemes: Mapping[str, Any]) -> tuple[Auth, ...]:
    found: list[Auth] = []
    for requirement in requirements or ():
        for name in requirement:
            scheme = schemes.get(name) or {}
            if scheme.get("type") == "http":
                how = f"Authorization: {str(scheme.get('scheme', '')).capitalize()} <token>"
            elif scheme.get("type") == "apiKey":
                how = f"{scheme.get('in', '')} {scheme.get('name', '')}"
            else:
                how = str(scheme.get("type", ""))
            found.append(Auth(str(name), how, str(scheme.get("description", ""))))
    return tuple(found)


def anchor(method: str, path: str) -> str:
    """The page's id of an operation: ``op-get-matches-match_id``."""
    return "op-" + method.lower() + "-" + (re.sub(r"[^A-Za-z0-9_]+", "-", path).strip("-") or "root")


def reference(document: Mapping[str, Any]) -> Reference:
    """The page's content from the OpenAPI document: every operation of every path (in the
    document's order), every component schema."""
    components = (document.get("components") or {}).get("schemas") or {}
    schemes = (document.get("components") or {}).get("securitySchemes") or {}
    servers = document.get("servers") or [{}]
    base = str(servers[0].get("url", "")).rstrip("/")
    default_security = document.get("security")
    operations: list[Operation] = []
    for path, item in (document.get("paths") or {}).items():
        shared = list(item.get("parameters") or ())
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, Mapping):
                continue
            params = tuple(
                Parameter(
                    name=str(p.get("name", "")),
                    location=str(p.get("in", "")),
                    schema=schema(p.get("schema")),
                    required=bool(p.get("required")),
                    description=str(p.get("description", "")),
                )
                for p in [*shared, *(op.get("parameters") or ())]
            )
            request = op.get("requestBody") or {}
            answers = tuple(
                Answer(str(code), str(r.get("description", "")), _body(r.get("content"), components))
                for code, r in (op.get("responses") or {}).items()
            )
            operations.append(
                Operation(
                    method=method.upper(),
                    path=str(path),
                    url=base + str(path),
                    anchor=anchor(method, str(path)),
                    summary=str(op.get("summary", "")),
                    description=str(op.get("description", "")),
                    auth=_auth(op.get("security", default_security), schemes),
                    parameters=params,
                    body=_body(request.get("content"), components),
                    body_required=bool(request.get("required")),
                    answers=tuple(sorted(answers, key=lambda a: a.status)),
                )
            )
    info = document.get("info") or {}
    return Reference(
        title=str(info.get("title", "API")),
        version=str(info.get("version", "")),
        openapi=str(document.get("openapi", "")),
        description=str(info.get("description", "")),
        base=base,
        operations=tuple(operations),
        schemas=tuple((str(name), schema(raw)) for name, raw in components.items()),
    )
