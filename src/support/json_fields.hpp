// A record's JSON form as one table of its fields: each field's name, whether a file must have
// it, and its checked conversion both ways, written once and used for writing and for reading
// (the tuning database's entries, clgemm-tune's state file). Header-only, so that the tools,
// which see only the shared library's exported symbols, compile their own copy.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace clgemm::detail {

template <typename Record>
struct JsonField {
  std::string name;
  bool required = false;
  std::function<nlohmann::json(const Record&)> write;
  // Reads the field's value into the record; throws std::invalid_argument with the reason.
  std::function<void(const nlohmann::json& value, Record&)> read;
};

template <typename Record>
using JsonFields = std::vector<JsonField<Record>>;

// Every field of `record`, by name.
template <typename Record>
nlohmann::json fields_to_json(const Record& record, const JsonFields<Record>& fields) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& field : fields) j[field.name] = field.write(record);
  return j;
}

// The fields of the object `j` into `record`, in the table's order (a field may check itself
// against those read before it); a field the object lacks keeps the record's value. Throws
// std::invalid_argument: "is not a JSON object", "has no \"<name>\"" for a required field, or
// the field's own reason.
template <typename Record>
void fields_from_json(const nlohmann::json& j, Record& record, const JsonFields<Record>& fields) {
  if (!j.is_object()) throw std::invalid_argument("is not a JSON object");
  for (const auto& field : fields) {
    const auto value = j.find(field.name);
    if (value == j.end()) {
      if (field.required) throw std::invalid_argument("has no \"" + field.name + "\"");
      continue;
    }
    field.read(*value, record);
  }
}

// Checked values; each throws std::invalid_argument naming the field.
inline std::string json_text(const nlohmann::json& value, const std::string& name) {
  if (!value.is_string()) throw std::invalid_argument("\"" + name + "\" is not a string");
  return value.get<std::string>();
}

// An integer in [minimum, maximum]; a fraction, a string or a value out of range is refused
// (converting 1e30 to an integer would be undefined).
inline std::int64_t json_integer(const nlohmann::json& value, const std::string& name,
                                 std::int64_t minimum, std::int64_t maximum) {
  // nlohmann keeps non-negative integers as unsigned: read both kinds, then check the range.
  bool fits = false;
  std::int64_t number = 0;
  if (value.is_number_unsigned()) {
    const std::uint64_t u = value.get<std::uint64_t>();
    fits = u <= std::uint64_t(INT64_MAX);
    number = fits ? std::int64_t(u) : 0;
  } else if (value.is_number_integer()) {
    fits = true;
    number = value.get<std::int64_t>();
  }
  if (!fits || number < minimum || number > maximum)
    throw std::invalid_argument("\"" + name + "\" = " + value.dump() + " is not an integer in " +
                                std::to_string(minimum) + ".." + std::to_string(maximum));
  return number;
}

// A number of at least 0 (JSON has no NaN or infinity).
inline double json_non_negative(const nlohmann::json& value, const std::string& name) {
  if (!value.is_number() || !(value.get<double>() >= 0))
    throw std::invalid_argument("\"" + name + "\" is not a number of at least 0");
  return value.get<double>();
}

inline bool json_flag(const nlohmann::json& value, const std::string& name) {
  if (!value.is_boolean()) throw std::invalid_argument("\"" + name + "\" is not true or false");
  return value.get<bool>();
}

// Fields of the usual kinds, from the record's member: a pointer to it (&Record::name), or for a
// member of a member a generic lambda that gives it ([](auto& r) -> auto& { return r.x.y; }).
template <typename Record, typename Access>
JsonField<Record> text_field(std::string name, Access access, bool required = false) {
  return {name, required,
          [access](const Record& r) { return nlohmann::json(std::invoke(access, r)); },
          [access, name](const nlohmann::json& value, Record& r) {
            std::invoke(access, r) = json_text(value, name);
          }};
}

template <typename Record, typename Access>
JsonField<Record> integer_field(std::string name, Access access, std::int64_t minimum,
                                std::int64_t maximum, bool required = false) {
  return {name, required,
          [access](const Record& r) { return nlohmann::json(std::invoke(access, r)); },
          [access, name, minimum, maximum](const nlohmann::json& value, Record& r) {
            using Member = std::remove_reference_t<decltype(std::invoke(access, r))>;
            std::invoke(access, r) = Member(json_integer(value, name, minimum, maximum));
          }};
}

template <typename Record, typename Access>
JsonField<Record> non_negative_field(std::string name, Access access, bool required = false) {
  return {name, required,
          [access](const Record& r) { return nlohmann::json(std::invoke(access, r)); },
          [access, name](const nlohmann::json& value, Record& r) {
            std::invoke(access, r) = json_non_negative(value, name);
          }};
}

template <typename Record, typename Access>
JsonField<Record> flag_field(std::string name, Access access, bool required = false) {
  return {name, required,
          [access](const Record& r) { return nlohmann::json(std::invoke(access, r)); },
          [access, name](const nlohmann::json& value, Record& r) {
            std::invoke(access, r) = json_flag(value, name);
          }};
}

}  // namespace clgemm::detail
