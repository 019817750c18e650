#!/usr/bin/python3
"""Validates YAML files against a JSON Schema (draft 2020-12), reading YAML as Pipe reads it.

Usage: check-schema.py SCHEMA.json FILE.yml...  Prints one JSON line per file: {"file", "errors": [...]}.
Keys stay the text they are written as (Pipe reads `on:` as the key "on", not as true); values resolve as
YAML 1.1 does (yes/on are booleans, as in Pipe), except that dates stay text.
Run with Debian's /usr/bin/python3 (python3-jsonschema 4.10 and python3-yaml).
"""
import json
import sys

import jsonschema
import yaml


class PipeLoader(yaml.SafeLoader):
    pass


PipeLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def construct_mapping(loader, node, deep=False):
    mapping = {}
    for key_node, value_node in node.value:
        if isinstance(key_node, yaml.ScalarNode):
            key = key_node.value
        else:
            key = json.dumps(loader.construct_object(key_node, deep=True))
        if key not in mapping:  # the first of repeated keys is the one Pipe uses
            mapping[key] = loader.construct_object(value_node, deep=True)
    return mapping


PipeLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)


def main():
    with open(sys.argv[1], encoding="utf-8") as handle:
        schema = json.load(handle)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for path in sys.argv[2:]:
        try:
            with open(path, encoding="utf-8") as handle:
                document = yaml.load(handle, Loader=PipeLoader)
        except yaml.YAMLError as problem:
            print(json.dumps({"file": path, "errors": ["not YAML: " + str(problem).replace("\n", " ")]}))
            continue
        errors = [
            "/" + "/".join(str(part) for part in error.absolute_path) + ": " + error.message
            for error in sorted(validator.iter_errors(document), key=lambda error: list(map(str, error.path)))
        ]
        print(json.dumps({"file": path, "errors": errors}))


if __name__ == "__main__":
    main()
