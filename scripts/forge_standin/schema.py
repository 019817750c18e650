"""The part of JSON Schema that the forges' OpenAPI subsets use, checked the way a forge's validator reports it."""
import re

DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


def type_name(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def fits_type(value, wanted):
    got = type_name(value)
    return got == wanted or (wanted == "number" and got == "integer")


def problems(value, schema, where="", nullable_ok=False):
    """Every way `value` breaks `schema`, as (pointer, message) pairs; empty when it fits."""
    found = []
    if value is None and (schema.get("nullable") or nullable_ok):
        return found
    wanted = schema.get("type")
    if wanted and not fits_type(value, wanted):
        return [(where, f"{render(value)} is not {article(wanted)} {wanted}")]
    if "enum" in schema and value not in schema["enum"]:
        found.append((where, f"{render(value)} is not a member of {render(schema['enum'])}"))
    if isinstance(value, str):
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            found.append((where, f"is too long ({len(value)} characters, maximum is {schema['maxLength']})"))
        if "minLength" in schema and len(value) < schema["minLength"]:
            found.append((where, f"is too short (minimum is {schema['minLength']} characters)"))
        if schema.get("format") == "date-time" and not DATE_TIME.match(value):
            found.append((where, f"{render(value)} is not a date-time (ISO 8601, YYYY-MM-DDTHH:MM:SSZ)"))
    if isinstance(value, list):
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            found.append((where, f"has {len(value)} items, the maximum is {schema['maxItems']}"))
        for index, item in enumerate(value):
            found += problems(item, schema.get("items", {}), f"{where}/{index}")
    if isinstance(value, dict):
        for name in schema.get("required", []):
            if name not in value:
                found.append((f"{where}/{name}", f'"{name}" wasn\'t supplied'))
        for name, sub in schema.get("properties", {}).items():
            if name in value:
                found += problems(value[name], sub, f"{where}/{name}")
    for sub in schema.get("allOf", []):
        found += problems(value, sub, where)
    if "oneOf" in schema:
        matching = [s for s in schema["oneOf"] if not problems(value, s, where)]
        if len(matching) != 1:
            details = [m for s in schema["oneOf"] for m in problems(value, s, where)]
            found.append((where, "No subschema in \"oneOf\" matched" if not matching else "more than one \"oneOf\" matched"))
            found += details[:3]
    if "anyOf" in schema and not any(not problems(value, s, where) for s in schema["anyOf"]):
        found.append((where, "No subschema in \"anyOf\" matched"))
    return found


def article(word):
    return "an" if word[0] in "aeiou" else "a"


def render(value):
    import json

    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."
