// The library JSON reader/writer and the decimal field-element helpers. Decimal strings are
// checked by Horner evaluation in the field (x = Σ dᵢ·10ⁱ with field arithmetic), which shares
// nothing with the base-10 long arithmetic under test; the moduli's decimals come from Python.
#include "snarkd/util/json.hpp"

#include <gtest/gtest.h>

#include "common/decode_error.hpp"

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "common/seed.hpp"
#include "snarkd/ff/fp.hpp"
#include "snarkd/ff/fr.hpp"

namespace {

using snarkd::DecodeError;
using snarkd::Json;

using snarkd::test::decode_error;

TEST(Json, ParsesEveryKind) {
  Json j = Json::parse(R"( {"a": [1, -2.5e+3, "x", true, false, null, {}, []], "b": {"c": "d"}} )");
  ASSERT_TRUE(j.is_object());
  ASSERT_EQ(j.size(), 2u);
  const Json& a = j["a"];
  ASSERT_EQ(a.size(), 8u);
  EXPECT_EQ(a[0].number_text(), "1");
  EXPECT_EQ(a[1].number_text(), "-2.5e+3");
  EXPECT_EQ(a[2].str(), "x");
  EXPECT_TRUE(a[3].boolean_value());
  EXPECT_FALSE(a[4].boolean_value());
  EXPECT_TRUE(a[5].is_null());
  EXPECT_TRUE(a[6].is_object());
  EXPECT_EQ(a[7].size(), 0u);
  EXPECT_EQ(j["b"]["c"].str(), "d");
  EXPECT_EQ(j.members()[0].first, "a");  // file order kept
}

TEST(Json, StringEscapes) {
  Json j = Json::parse(R"("q\" b\\ s\/ \b\f\n\r\t \u0041\u00e9\u20ac\ud83d\ude00")");
  EXPECT_EQ(j.str(), "q\" b\\ s/ \b\f\n\r\t A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
}

TEST(Json, DumpMatchesJsonStringifyLayout) {
  Json j = Json::object({{"p", Json::array({Json::string("1"), Json::string("a\"\n\x01")})},
                         {"n", Json::number(3)},
                         {"e", Json::array()},
                         {"o", Json::object()}});
  EXPECT_EQ(j.dump(1), "{\n \"p\": [\n  \"1\",\n  \"a\\\"\\n\\u0001\"\n ],\n \"n\": 3,\n \"e\": [],\n \"o\": {}\n}");
  EXPECT_EQ(j.dump(0), R"({"p":["1","a\"\n\u0001"],"n":3,"e":[],"o":{}})");
  EXPECT_EQ(Json::parse(j.dump(1)), j);
  EXPECT_EQ(Json::parse(j.dump(0)), j);
}

TEST(Json, SnarkjsFilesRoundTripByteForByte) {
  // snarkjs writes JSON.stringify(x, null, 1): dump(1) must give back the file exactly.
  for (const char* name : {"multiplier/verification_key.json", "multiplier/proof.json", "multiplier/public.json",
                           "lincomb/verification_key.json"}) {
    const std::string path = std::string(SNARKD_GROTH16_FIXTURES) + "/" + name;
    std::ifstream f(path, std::ios::binary);
    ASSERT_TRUE(f) << path;
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_EQ(Json::parse(text).dump(1), text) << path;
  }
}

TEST(Json, SyntaxErrorsGiveLineAndColumn) {
  // nlohmann's messages without its exception-id prefix; what matters is the position and that
  // every malformed text is refused.
  auto starts = [](const std::string& msg, const std::string& prefix) { return msg.rfind(prefix, 0) == 0; };
  EXPECT_TRUE(starts(decode_error([] { Json::parse(R"({"a" 1})"); }), "json: line 1, column 6: syntax error"));
  EXPECT_TRUE(starts(decode_error([] { Json::parse("[1,\n 2"); }), "json: line 2, column 3: syntax error"));
  for (const char* bad : {"[1, 2", "[1,]", "01", "\"ab", "\"a\\x\"", "\"\\ud800\"", "\"a\nb\"", "-", "1.e5", "", "tru",
                          "{\"a\":1,}", "[1] [2]", "\"\xff\""})
    EXPECT_TRUE(starts(decode_error([&] { Json::parse(bad); }), "json: line ")) << bad;
  EXPECT_EQ(decode_error([] { Json::parse(R"({"a":1,"a":2})"); }), "json: duplicate member \"a\"");
  EXPECT_EQ(decode_error([] { Json::parse(R"({"a":{"b":1,"c":{"b":2}},"c":3,"a":4})"); }),
            "json: duplicate member \"a\"");
  EXPECT_NO_THROW(Json::parse(R"({"a":{"b":1},"b":{"a":1}})"));  // one key in several objects
}

TEST(Json, ByteOrderMarkHasItsOwnMessage) {
  EXPECT_EQ(decode_error([] { Json::parse("\xEF\xBB\xBF[\"1\"]"); }),
            "json: the file starts with a UTF-8 byte-order mark (BOM), which JSON does not allow (snarkjs refuses it "
            "too): save it without one");
}

// A duplicate-key check that scanned the members for every key made a 5 MB proof.json take
// minutes; with a hash set per object it is linear. Not a timing test: it only has to finish
// within ctest's timeout, which the quadratic check (~10^11 string compares here) would not.
TEST(Json, ManyMembersParseInLinearTime) {
  std::string text = "{";
  const int n = 400000;
  for (int i = 0; i < n; ++i) text += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":\"" + std::to_string(i) + "\"";
  text += "}";
  const Json j = Json::parse(text);
  ASSERT_EQ(j.size(), size_t(n));
  EXPECT_EQ(j.members().back().second.str(), std::to_string(n - 1));
}

TEST(Json, DepthLimit) {
  const std::string ok = std::string(Json::kMaxDepth, '[') + std::string(Json::kMaxDepth, ']');
  EXPECT_NO_THROW(Json::parse(ok));
  const std::string deep = std::string(100000, '[');
  EXPECT_EQ(decode_error([&] { Json::parse(deep); }), "json: nesting deeper than " + std::to_string(Json::kMaxDepth));
}

TEST(Json, NumbersKeepTheirText) {
  const Json j = Json::parse("[18446744073709551616, -0.5e-3, 7, -7]");
  EXPECT_EQ(j[0].number_text(), "18446744073709551616");
  EXPECT_EQ(j[1].number_text(), "-0.5e-3");
  EXPECT_EQ(j[2].as_u64(), 7u);
  EXPECT_EQ(j[3].number_text(), "-7");
}

TEST(Json, AccessErrorsNameWhatIsMissing) {
  Json j = Json::parse(R"({"a": [1], "s": "x", "n": -1})");
  EXPECT_EQ(decode_error([&] { (void)j["b"]; }), "json: missing field \"b\"");
  EXPECT_EQ(decode_error([&] { (void)j["a"][1]; }), "json: index 1 out of range (array of 1)");
  EXPECT_EQ(decode_error([&] { (void)j["a"].str(); }), "json: expected a string, found an array");
  EXPECT_EQ(decode_error([&] { (void)j["n"].as_u64(); }), "json: -1 is not a non-negative integer");
  EXPECT_EQ(Json::parse("18446744073709551615").as_u64(), UINT64_MAX);
  EXPECT_EQ(decode_error([] { (void)Json::parse("18446744073709551616").as_u64(); }),
            "json: 18446744073709551616 does not fit in 64 bits");
  EXPECT_EQ(j.find("zz"), nullptr);
  EXPECT_THROW(Json::number_text("1."), snarkd::InvalidArgument);
  EXPECT_THROW(Json::number_text(" 1"), snarkd::InvalidArgument);
  EXPECT_THROW(Json::number_text("[1]"), snarkd::InvalidArgument);
  EXPECT_EQ(Json::number_text("-2.5e+3").number_text(), "-2.5e+3");
}

TEST(Json, LoadNamesThePath) {
  const std::string path = ::testing::TempDir() + "/json_test_bad.json";
  { std::ofstream(path) << "{\"a\": }"; }
  EXPECT_EQ(decode_error([&] { Json::load(path); }).rfind(path + ": json: line 1, column 7: syntax error", 0), 0u);
  EXPECT_EQ(decode_error([] { Json::load("/nonexistent/x.json"); }),
            "/nonexistent/x.json: cannot open: No such file or directory");
  EXPECT_EQ(decode_error([] { Json::load(::testing::TempDir()); }), ::testing::TempDir() + ": is a directory, not a file");
}

template <class F>
void decimal_round_trip(const char* field_name, const std::string& modulus_dec) {
  auto rng = snarkd::test::rng(std::string("json decimal ") + field_name);
  for (int i = 0; i < 200; ++i) {
    const F x = i == 0 ? F::zero() : i == 1 ? -F::one() : F::random(rng);
    const std::string dec = snarkd::to_decimal(x);
    F horner = F::zero();
    for (char c : dec) {
      ASSERT_TRUE(c >= '0' && c <= '9') << dec;
      horner = horner * F::from_u64(10) + F::from_u64(uint64_t(c - '0'));
    }
    EXPECT_EQ(horner, x) << dec;
    EXPECT_TRUE(dec == "0" || dec[0] != '0') << dec;
    EXPECT_EQ(snarkd::field_from_decimal<F>(dec, field_name), x);
    EXPECT_EQ(snarkd::field_from_decimal<F>("000" + dec, field_name), x);
  }
  EXPECT_EQ(decode_error([&] { snarkd::field_from_decimal<F>(modulus_dec, field_name); }),
            std::string("decimal value is not below the ") + field_name + " modulus");
  for (const std::string& bad : std::vector<std::string>{"", "-1", "12a", " 1", "1e3", "0x10", std::string(200, '9')})
    EXPECT_NE(decode_error([&] { snarkd::field_from_decimal<F>(bad, field_name); })
                  .find(std::string("is not a decimal ") + field_name + " element"),
              std::string::npos)
        << bad;
}

TEST(Json, DecimalFr) {
  decimal_round_trip<snarkd::ff::Fr>(
      "Fr", "52435875175126190479447740508185965837690552500527637822603658699938581184513");
}
TEST(Json, DecimalFp) {
  decimal_round_trip<snarkd::ff::Fp>("Fp",
                                     "4002409555221667393417789825735904156556882819939007885332058136124031650490"
                                     "837864442687629129015664037894272559787");
}

}  // namespace
