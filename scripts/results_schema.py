"""The result files' layout: platform/results_schema.json, the file gpurf is built with (its
version, the keys of result.json and summary.json, the host-dependent keys)."""
import json
import os

_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "platform",
                     "results_schema.json")
with open(_FILE) as _f:
    _SCHEMA = json.load(_f)

VERSION = _SCHEMA["version"]
RESULT_KEYS = list(_SCHEMA["result_keys"])  # top-level keys of result.json, in order
HOST_KEYS = set(_SCHEMA["host_keys"])  # differ from host to host, not from the model
# stats.json: the keys of each statistic kind ({"counter": ["value"], ...})
STAT_KINDS = {k: v for k, v in _SCHEMA["statistic_kinds"].items() if k != "about"}
FILES = _SCHEMA["files"]  # run: result.json, suite: summary.json, ...


def check(obj, where, error, missing="rerun gpurf suite to regenerate it",
          other="use a matching gpurf or rerun the suite"):
    """Raises error(message) when `obj` (a result object) has another layout than this one;
    `missing` and `other` end the message with what to do (gpurf compare says the same)."""
    if "schema" not in obj:
        raise error(f"{where} has no \"schema\" field (schema 0, written by an older gpurf); "
                    f"this tool reads schema {VERSION}: {missing}")
    if obj["schema"] != VERSION or isinstance(obj["schema"], bool):
        raise error(f"{where} has \"schema\": {json.dumps(obj['schema'])}; this tool reads "
                    f"schema {VERSION}: {other}")


def numeric_leaves(o, prefix=""):
    """(dotted path, value) of every number in a result object but its schema: the statistics
    gpurf compare, plot and sweep offer."""
    for k, v in o.items():
        p = prefix + k
        if isinstance(v, dict):
            yield from numeric_leaves(v, p + ".")
        elif isinstance(v, (int, float)) and not isinstance(v, bool) and p != "schema":
            yield p, v
