// The measured-choice cache (src/tuning/kbla_choice_cache.hpp) and the choice policy (kbla_kernel_choice.hpp):
// round trips through the file, foreign and corrupt files, files that cannot be written, several writers at once,
// and when the policy times candidates. Host only: nothing here needs a device.
#include <tuning/kbla_choice_cache.hpp>
#include <tuning/kbla_decision_memo.hpp>
#include <tuning/kbla_kernel_choice.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace {

using kbla::tuning::Choice;
using kbla::tuning::ChoiceCache;

// A fresh directory per test, removed afterwards.
class CacheDir : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/kbla-choice-cache-XXXXXX";
    ASSERT_NE(mkdtemp(name), nullptr);
    dir_ = name;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string file(const std::string& name) const { return dir_ + "/" + name; }
  static std::string read_all(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static void write_all(const std::string& path, const std::string& text) { std::ofstream(path) << text; }
  std::string dir_;
};

TEST_F(CacheDir, MemoryOnlyCacheFindsWhatItRecorded) {
  ChoiceCache cache;
  Choice c;
  EXPECT_FALSE(cache.find("gpu", "inner D R 8x8", c));
  cache.record("gpu", "inner D R 8x8", Choice{"dmma_ring", 1.5e-4});
  ASSERT_TRUE(cache.find("gpu", "inner D R 8x8", c));
  EXPECT_EQ(c.kernel, "dmma_ring");
  EXPECT_DOUBLE_EQ(c.seconds, 1.5e-4);
  EXPECT_FALSE(cache.find("other gpu", "inner D R 8x8", c));
  EXPECT_TRUE(cache.warnings().empty());
}

TEST_F(CacheDir, ChoicesSurviveInTheFileForTheNextProcess) {
  const std::string path = file("choices.txt");
  {
    ChoiceCache writer(path);
    EXPECT_EQ(writer.size(), 0u);  // missing file: empty, and no warning
    writer.record("H200 132 SMs", "inner D R 8x8", Choice{"dmma_ring", 2e-4});
    writer.record("H100 132 SMs", "inner D R 8x8", Choice{"cublas", 3e-4});
    writer.record("H200 132 SMs", "inner D R 8x8", Choice{"simt", 1e-4});  // replaces the first
    EXPECT_TRUE(writer.warnings().empty());
  }
  const std::string text = read_all(path);
  EXPECT_EQ(text.rfind(kbla::tuning::cache_file_header(), 0), 0u) << text;
  ChoiceCache reader(path);
  EXPECT_EQ(reader.size(), 2u);
  Choice c;
  ASSERT_TRUE(reader.find("H200 132 SMs", "inner D R 8x8", c));
  EXPECT_EQ(c.kernel, "simt");
  ASSERT_TRUE(reader.find("H100 132 SMs", "inner D R 8x8", c));  // another device's record is kept, not mixed
  EXPECT_EQ(c.kernel, "cublas");
}

TEST_F(CacheDir, ForeignFileIsNeitherReadNorOverwritten) {
  const std::string path = file("not-a-cache.txt");
  const std::string text = "important data\nH200\tinner\tsimt\t1e-4\n";
  write_all(path, text);
  ChoiceCache cache(path);
  EXPECT_EQ(cache.size(), 0u);
  ASSERT_EQ(cache.warnings().size(), 1u);
  cache.record("H200", "inner", Choice{"cublas", 1e-3});  // kept in memory only
  Choice c;
  EXPECT_TRUE(cache.find("H200", "inner", c));
  EXPECT_EQ(read_all(path), text);
}

TEST_F(CacheDir, LinesThatDoNotParseAreSkippedWithOneWarning) {
  const std::string path = file("choices.txt");
  write_all(path, std::string(kbla::tuning::cache_file_header()) +
                      "\nH200\tinner D\tsimt\t1e-4\n"
                      "H200\ttoo few fields\n"
                      "H200\tinner Z\tdmma\tnot-a-number\n"
                      "H200\tinner S\tdmma\t-1\n"
                      "\n"
                      "H200\tupdate D\tbulk\t2.5e-4\n"
                      "H200\tinner C\tsimt\t1e-4\textra\n");
  ChoiceCache cache(path);
  EXPECT_EQ(cache.size(), 2u);
  ASSERT_EQ(cache.warnings().size(), 1u);
  EXPECT_NE(cache.warnings()[0].find("4 line(s)"), std::string::npos) << cache.warnings()[0];
  Choice c;
  ASSERT_TRUE(cache.find("H200", "update D", c));
  EXPECT_EQ(c.kernel, "bulk");
  // the next record rewrites the file without the bad lines
  cache.record("H200", "inner Z", Choice{"dmma", 3e-4});
  ChoiceCache again(path);
  EXPECT_EQ(again.size(), 3u);
  EXPECT_TRUE(again.warnings().empty());
}

TEST_F(CacheDir, TruncatedFileCostsOnlyTheBrokenLine) {
  const std::string path = file("choices.txt");
  write_all(path, std::string(kbla::tuning::cache_file_header()) + "\nH200\tinner D\tsimt\t1e-4\nH200\tupd");
  ChoiceCache cache(path);
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.warnings().size(), 1u);
}

TEST_F(CacheDir, UnwritableFileKeepsChoicesInMemory) {
  ChoiceCache cache(file("no/such/directory/choices.txt"));
  cache.record("H200", "inner", Choice{"simt", 1e-4});
  Choice c;
  EXPECT_TRUE(cache.find("H200", "inner", c));
  EXPECT_EQ(cache.warnings().size(), 1u);
  cache.record("H200", "update", Choice{"bulk", 1e-4});
  EXPECT_EQ(cache.warnings().size(), 1u);  // said once
}

TEST_F(CacheDir, FieldsWithTabsOrNewlinesAreRefused) {
  ChoiceCache cache(file("choices.txt"));
  cache.record("H200", "inner\tD", Choice{"simt", 1e-4});
  cache.record("H200", "inner", Choice{"", 1e-4});
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.warnings().size(), 1u);
}

// Writers that do not share a ChoiceCache (as separate processes would not) and record at the same time:
// every record of every writer is in the file afterwards, and the file parses.
TEST_F(CacheDir, ConcurrentWritersLoseNothing) {
  const std::string path = file("choices.txt");
  constexpr int writers = 4, per_writer = 25;
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w)
    threads.emplace_back([&, w] {
      ChoiceCache own(path);
      for (int i = 0; i < per_writer; ++i)
        own.record("H200", "class " + std::to_string(w) + "." + std::to_string(i), Choice{"k" + std::to_string(w), 1e-4});
    });
  for (std::thread& t : threads) t.join();
  ChoiceCache reader(path);
  EXPECT_EQ(reader.size(), std::size_t(writers * per_writer));
  EXPECT_TRUE(reader.warnings().empty());
  Choice c;
  ASSERT_TRUE(reader.find("H200", "class 3.24", c));
  EXPECT_EQ(c.kernel, "k3");
}

// --- the choice policy ---

struct CountingTimer {
  std::vector<std::string> timed;
  double operator()(const std::string& name) {
    timed.push_back(name);
    if (name == "slow") return 3e-4;
    if (name == "fast") return 1e-4;
    if (name == "medium") return 2e-4;
    return -1;  // cannot run here
  }
};

TEST(KernelChoice, MeasuresOnceThenUsesTheRecord) {
  ChoiceCache cache;
  CountingTimer timer;
  const std::vector<std::string> candidates{"slow", "fast", "medium", "unavailable"};
  auto choose = [&] {
    return kbla::tuning::choose_kernel(cache, kbla::tuning::TuningMode::measure, "H200", "inner D R 8x8", candidates,
                                       "slow", [&](const std::string& n) { return timer(n); });
  };
  EXPECT_EQ(choose(), "fast");
  EXPECT_EQ(timer.timed.size(), 4u);
  EXPECT_EQ(choose(), "fast");
  EXPECT_EQ(timer.timed.size(), 4u);  // not timed again
  Choice c;
  ASSERT_TRUE(cache.find("H200", "inner D R 8x8", c));
  EXPECT_DOUBLE_EQ(c.seconds, 1e-4);
}

// A timer whose every second call is 40 % slow: the order in which two close candidates are timed must not decide
// between them.
TEST(KernelChoice, CloseRaceIsTimedAgainInTheOtherOrder) {
  ChoiceCache cache;
  const std::map<std::string, double> truth{{"own", 1.0e-3}, {"cublas", 0.9e-3}};
  std::vector<std::string> order;
  auto timer = [&](const std::string& n) {
    order.push_back(n);
    return truth.at(n) * (order.size() % 2 == 0 ? 1.4 : 1.0);
  };
  EXPECT_EQ(kbla::tuning::choose_kernel(cache, kbla::tuning::TuningMode::measure, "H200", "c", {"own", "cublas"},
                                        "own", timer),
            "cublas");
  EXPECT_EQ(order, (std::vector<std::string>{"own", "cublas", "own", "cublas", "cublas", "own"}));
  Choice c;
  ASSERT_TRUE(cache.find("H200", "c", c));
  EXPECT_DOUBLE_EQ(c.seconds, (0.9e-3 * 1.4 + 0.9e-3) / 2);  // the mean of its A B B A timings
}

// Clocks that drift during the measurement (each timing 5 % slower than the one before): the candidate timed first
// must not keep the lead the drift gave it. Timing the close race once more in the other order and keeping each
// candidate's faster time chose "first" here.
TEST(KernelChoice, CloseRaceCancelsALinearDrift) {
  ChoiceCache cache;
  const std::map<std::string, double> truth{{"first", 1.0e-3}, {"second", 0.97e-3}};
  int calls = 0;
  auto timer = [&](const std::string& n) { return truth.at(n) * (1.0 + 0.05 * calls++); };
  EXPECT_EQ(kbla::tuning::choose_kernel(cache, kbla::tuning::TuningMode::measure, "H200", "c", {"first", "second"},
                                        "first", timer),
            "second");
  EXPECT_EQ(calls, 6);
}

TEST(KernelChoice, ClearWinnerIsTimedOnce) {
  ChoiceCache cache;
  int calls = 0;
  auto timer = [&](const std::string& n) {
    ++calls;
    return n == "fast" ? 1e-3 : 2e-3;
  };
  EXPECT_EQ(kbla::tuning::choose_kernel(cache, kbla::tuning::TuningMode::measure, "H200", "c", {"slow", "fast"},
                                        "slow", timer),
            "fast");
  EXPECT_EQ(calls, 2);
}

TEST(KernelChoice, ModelOnlyNeverTimesNorRecords) {
  ChoiceCache cache;
  CountingTimer timer;
  const std::string pick =
      kbla::tuning::choose_kernel(cache, kbla::tuning::TuningMode::model_only, "H200", "c", {"slow", "fast"}, "slow",
                                  [&](const std::string& n) { return timer(n); });
  EXPECT_EQ(pick, "slow");
  EXPECT_TRUE(timer.timed.empty());
  EXPECT_EQ(cache.size(), 0u);
}

TEST(KernelChoice, ModelOnlyStillUsesAMeasuredRecord) {
  ChoiceCache cache;
  cache.record("H200", "c", Choice{"fast", 1e-4});
  CountingTimer timer;
  EXPECT_EQ(kbla::tuning::choose_kernel(cache, kbla::tuning::TuningMode::model_only, "H200", "c", {"slow", "fast"},
                                        "slow", [&](const std::string& n) { return timer(n); }),
            "fast");
  EXPECT_TRUE(timer.timed.empty());
}

TEST(KernelChoice, NothingTimeableFallsBackToTheModelWithoutRecording) {
  ChoiceCache cache;
  CountingTimer timer;
  EXPECT_EQ(kbla::tuning::choose_kernel(cache, kbla::tuning::TuningMode::measure, "H200", "c", {"x", "y"}, "y",
                                        [&](const std::string& n) { return timer(n); }),
            "y");
  EXPECT_EQ(timer.timed.size(), 2u);
  EXPECT_EQ(cache.size(), 0u);
}

TEST(KernelChoice, RecordOfAKernelNoLongerOfferedIsMeasuredAgain) {
  ChoiceCache cache;
  cache.record("H200", "c", Choice{"retired_kernel", 1e-5});
  CountingTimer timer;
  EXPECT_EQ(kbla::tuning::choose_kernel(cache, kbla::tuning::TuningMode::measure, "H200", "c", {"slow", "medium"},
                                        "slow", [&](const std::string& n) { return timer(n); }),
            "medium");
  EXPECT_EQ(timer.timed.size(), 6u);  // 1.5x apart: a close race, timed again A B B A
}

TEST(KernelChoice, ProcessCacheIsOnePerPath) {
  ChoiceCache& a = kbla::tuning::process_choice_cache("");
  ChoiceCache& b = kbla::tuning::process_choice_cache("");
  EXPECT_EQ(&a, &b);
}

}  // namespace

// The per-process memo of final decisions: a key finds what was recorded under it and nothing else (every field of
// the key matters), a later record replaces the earlier one, and threads recording different keys lose none.
TEST(DecisionMemo, FindsWhatWasRecordedUnderItsKeyOnly) {
  using Key = std::tuple<int, int, bool, std::string>;
  kbla::tuning::DecisionMemo<Key, int> memo;
  int value = -1;
  EXPECT_FALSE(memo.find(Key{1, 2, true, ""}, value));
  memo.record(Key{1, 2, true, ""}, 7);
  EXPECT_TRUE(memo.find(Key{1, 2, true, ""}, value));
  EXPECT_EQ(value, 7);
  value = -1;
  EXPECT_FALSE(memo.find(Key{1, 2, false, ""}, value));
  EXPECT_FALSE(memo.find(Key{1, 3, true, ""}, value));
  EXPECT_FALSE(memo.find(Key{1, 2, true, "/tmp/other.cache"}, value));
  EXPECT_EQ(value, -1);
  memo.record(Key{1, 2, true, ""}, 9);
  EXPECT_TRUE(memo.find(Key{1, 2, true, ""}, value));
  EXPECT_EQ(value, 9);

  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&memo, t] {
      for (int i = 0; i < 200; ++i) memo.record(Key{t, i, false, "threads"}, 1000 * t + i);
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t)
    for (int i = 0; i < 200; ++i) {
      ASSERT_TRUE(memo.find(Key{t, i, false, "threads"}, value));
      EXPECT_EQ(value, 1000 * t + i);
    }
}

// A thread's last decision belongs to the memo it was found in: a new memo (here most likely at the address of the
// one before) starts empty.
TEST(DecisionMemo, ANewMemoKnowsNothingOfAnOldOne) {
  using Key = std::tuple<int, std::string>;
  int value = -1;
  for (int round = 0; round < 3; ++round) {
    kbla::tuning::DecisionMemo<Key, int> memo;
    EXPECT_FALSE(memo.find(Key{5, "same"}, value)) << "round " << round;
    memo.record(Key{5, "same"}, round);
    ASSERT_TRUE(memo.find(Key{5, "same"}, value));
    EXPECT_EQ(value, round);
  }
}
