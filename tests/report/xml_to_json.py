"""Parses an XML file with Python's own parser and prints its tree as JSON, so the C++ tests can
check JUnit reports with an independent, conforming XML parser. Exits non-zero if the file is
not well-formed."""
import json
import sys
import xml.etree.ElementTree as ET


def convert(e):
    return {"tag": e.tag, "attrib": dict(e.attrib), "text": e.text or "",
            "children": [convert(c) for c in e]}


print(json.dumps(convert(ET.parse(sys.argv[1]).getroot())))
