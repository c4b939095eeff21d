// A record's JSON field table (src/support/json_fields.hpp): written and read back the same,
// absent optional fields keep their defaults, and each fault is refused naming its field.
#include <gtest/gtest.h>

#include <climits>
#include <string>

#include "support/json_fields.hpp"

namespace clgemm::detail {
namespace {

using nlohmann::json;

struct Sample {
  std::string name;
  std::int64_t count = 1;
  int small = 0;
  double rate = 0;
  bool done = false;
  std::string note = "unset";
};

const JsonFields<Sample>& sample_fields() {
  static const JsonFields<Sample> fields = {
      text_field<Sample>("name", &Sample::name, true),
      integer_field<Sample>("count", &Sample::count, 1, 100),
      integer_field<Sample>("small", &Sample::small, 0, INT_MAX),
      non_negative_field<Sample>("rate", &Sample::rate),
      flag_field<Sample>("done", &Sample::done),
      text_field<Sample>("note", &Sample::note)};
  return fields;
}

// The reason reading `text` gives, or "" when it reads.
std::string refusal(const std::string& text) {
  Sample s;
  try {
    fields_from_json(json::parse(text), s, sample_fields());
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

TEST(JsonFields, WrittenAndReadBackTheSame) {
  const Sample out{"x", 42, 7, 2.5, true, "hello"};
  const json j = fields_to_json(out, sample_fields());
  EXPECT_EQ(j, json::parse(R"({"name": "x", "count": 42, "small": 7, "rate": 2.5,
                               "done": true, "note": "hello"})"));
  Sample in;
  fields_from_json(j, in, sample_fields());
  EXPECT_EQ(in.name, "x");
  EXPECT_EQ(in.count, 42);
  EXPECT_EQ(in.small, 7);
  EXPECT_EQ(in.rate, 2.5);
  EXPECT_TRUE(in.done);
  EXPECT_EQ(in.note, "hello");
}

TEST(JsonFields, AbsentOptionalFieldsKeepTheirDefaults) {
  Sample in;
  fields_from_json(json::parse(R"({"name": "y", "unknown": [1, 2]})"), in, sample_fields());
  EXPECT_EQ(in.name, "y");
  EXPECT_EQ(in.count, 1);
  EXPECT_EQ(in.note, "unset");
}

TEST(JsonFields, EachFaultIsRefusedNamingItsField) {
  EXPECT_EQ(refusal(R"([1, 2])"), "is not a JSON object");
  EXPECT_EQ(refusal(R"({"count": 3})"), "has no \"name\"");
  EXPECT_EQ(refusal(R"({"name": 3})"), "\"name\" is not a string");
  EXPECT_EQ(refusal(R"({"name": "z", "count": 101})"),
            "\"count\" = 101 is not an integer in 1..100");
  EXPECT_EQ(refusal(R"({"name": "z", "count": 2.5})"),
            "\"count\" = 2.5 is not an integer in 1..100");
  EXPECT_EQ(refusal(R"({"name": "z", "count": "2"})"),
            "\"count\" = \"2\" is not an integer in 1..100");
  EXPECT_EQ(refusal(R"({"name": "z", "small": 18446744073709551615})"),
            "\"small\" = 18446744073709551615 is not an integer in 0..2147483647");
  EXPECT_EQ(refusal(R"({"name": "z", "rate": -1})"), "\"rate\" is not a number of at least 0");
  EXPECT_EQ(refusal(R"({"name": "z", "rate": null})"), "\"rate\" is not a number of at least 0");
  EXPECT_EQ(refusal(R"({"name": "z", "done": 1})"), "\"done\" is not true or false");
  EXPECT_EQ(refusal(R"({"name": "z", "count": 100, "small": 0, "rate": 0, "done": false})"), "");
}

}  // namespace
}  // namespace clgemm::detail
