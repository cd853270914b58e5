#pragma once
// JUnit reports are checked through python3's XML parser (xml_to_json.py), not a hand-rolled one.
#include <nlohmann/json.hpp>
#include <string>

namespace lp::report::test {

/// The parsed tree {tag, attrib, text, children}; fails the current test if the XML is malformed.
nlohmann::json parse_xml(const std::string& xml);

/// The children of `node` with tag `tag`.
std::vector<nlohmann::json> children_named(const nlohmann::json& node, const std::string& tag);

/// A scratch file path unique to this process.
std::string temp_path(const std::string& suffix);

}  // namespace lp::report::test
