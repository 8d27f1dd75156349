// Measured kernel choices, kept in memory and (optionally) in a file shared by every process on the machine:
// the library's "wisdom". When a call class (say, kbla::inner, double, row-major, 8 x 8, ~2^24 rows) first runs on
// a device, the selection times a few candidate kernels on scratch buffers and records the winner here; later
// calls, and later processes on the same kind of device, read it instead of measuring again.
//
// A record is (device, call class, choice, seconds): the device key names the GPU model, its SM count, the driver
// and the library version, so a file can serve several GPU models and a driver or library upgrade starts afresh
// (entries of other keys are kept, never used). Choices are kernel names, never numbers.
//
// The file is plain text, one record per line, tab-separated, under a versioned header. It is only ever replaced
// whole: records are merged under an exclusive lock (flock on "<path>.lock"), written to a temporary file in the
// same directory and renamed over the old one, so a reader sees the old file or the new one, never half of one.
// A missing file is an empty cache; a file with a foreign header, or lines that do not parse, is ignored (whole
// or line by line) with one warning on stderr, and a cache that cannot be written is kept in memory with one
// warning: a bad cache file costs a re-measurement, never a crash or a wrong kernel.
//
// Host C++ only (no Kokkos, no CUDA), POSIX file locking; used by the CUDA selection code and by the tests.
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace kbla {
namespace tuning {

// The first line of every cache file; a file that starts otherwise is not read.
inline const char* cache_file_header() { return "# KokkosBlockLA kernel choices, format 1"; }

struct Choice {
  std::string kernel;  // the winner's name, as the selection code spells it
  double seconds = 0;  // its measured time per call, for the record and the docs table
};

class ChoiceCache {
 public:
  // path: the cache file, or empty for a cache that lives in memory only.
  explicit ChoiceCache(std::string path = std::string()) : path_(std::move(path)) {
    if (!path_.empty()) load_file_into(records_);
  }

  const std::string& path() const { return path_; }

  // The recorded choice for (device, call class), if any.
  bool find(const std::string& device, const std::string& call_class, Choice& out) const {
    std::lock_guard<std::mutex> guard(mutex_);
    const auto it = records_.find(key(device, call_class));
    if (it == records_.end()) return false;
    out = it->second;
    return true;
  }

  // Keeps the choice in memory and, with a file, merges it into the file (atomic replace under the lock).
  void record(const std::string& device, const std::string& call_class, const Choice& choice) {
    std::lock_guard<std::mutex> guard(mutex_);
    if (!valid_field(device) || !valid_field(call_class) || !valid_field(choice.kernel)) {
      warn_once("a record with a tab, a newline or an empty field was not stored");
      return;
    }
    records_[key(device, call_class)] = choice;
    if (!path_.empty() && !foreign_file_) merge_into_file(device, call_class, choice);
  }

  // Records in memory (tests and the docs table).
  std::size_t size() const {
    std::lock_guard<std::mutex> guard(mutex_);
    return records_.size();
  }
  std::vector<std::string> warnings() const {
    std::lock_guard<std::mutex> guard(mutex_);
    return warnings_;
  }

 private:
  using Key = std::pair<std::string, std::string>;
  using Records = std::map<Key, Choice>;

  static Key key(const std::string& device, const std::string& call_class) { return {device, call_class}; }
  static bool valid_field(const std::string& s) { return !s.empty() && s.find_first_of("\t\n\r") == std::string::npos; }

  void warn_once(const std::string& what) {
    for (const std::string& w : warnings_)
      if (w == what) return;
    warnings_.push_back(what);
    std::fprintf(stderr, "KokkosBlockLA: kernel choice cache %s: %s\n", path_.empty() ? "(memory)" : path_.c_str(),
                 what.c_str());
  }

  // Reads the file's records into `into` (later lines win). Missing file: nothing, silently. Callers hold mutex_
  // (or are the constructor).
  void load_file_into(Records& into) {
    std::ifstream in(path_);
    if (!in) return;
    std::string line;
    if (!std::getline(in, line)) return;  // empty file: an empty cache
    if (line != cache_file_header()) {
      foreign_file_ = true;  // someone else's file, or another format: never overwritten
      warn_once("not a cache file of this format (first line differs); neither read nor overwritten, choices kept "
                "in memory only");
      return;
    }
    int bad = 0;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      std::vector<std::string> fields;
      std::stringstream split(line);
      for (std::string f; std::getline(split, f, '\t');) fields.push_back(f);
      char* end = nullptr;
      const double seconds = fields.size() == 4 ? std::strtod(fields[3].c_str(), &end) : -1;
      if (fields.size() != 4 || end == fields[3].c_str() || *end != '\0' || !(seconds >= 0) ||
          !valid_field(fields[0]) || !valid_field(fields[1]) || !valid_field(fields[2])) {
        ++bad;
        continue;
      }
      into[key(fields[0], fields[1])] = Choice{fields[2], seconds};
    }
    if (bad > 0) warn_once(std::to_string(bad) + " line(s) that do not parse were ignored");
  }

  // Under an exclusive lock: read what other processes wrote, add this record, write a temporary file, rename it.
  void merge_into_file(const std::string& device, const std::string& call_class, const Choice& choice) {
    const std::string lock_path = path_ + ".lock";
    const int lock_fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock_fd < 0) {
      warn_once(std::string("cannot open its lock file (") + std::strerror(errno) + "); choices kept in memory only");
      return;
    }
    if (::flock(lock_fd, LOCK_EX) != 0) {
      ::close(lock_fd);
      warn_once("cannot lock it; choices kept in memory only");
      return;
    }
    Records merged;
    load_file_into(merged);
    if (foreign_file_) {  // replaced by a foreign file since this cache was opened
      ::flock(lock_fd, LOCK_UN);
      ::close(lock_fd);
      return;
    }
    merged[key(device, call_class)] = choice;
    for (const auto& r : merged) records_.insert(r);  // others' records become visible here too
    const std::string tmp = path_ + ".tmp." + std::to_string(::getpid());
    bool ok = false;
    {
      std::ofstream out(tmp, std::ios::trunc);
      if (out) {
        out << cache_file_header() << '\n';
        out.precision(6);
        for (const auto& r : merged)
          out << r.first.first << '\t' << r.first.second << '\t' << r.second.kernel << '\t' << r.second.seconds << '\n';
        out.flush();
        ok = static_cast<bool>(out);
      }
    }
    if (ok) ok = std::rename(tmp.c_str(), path_.c_str()) == 0;
    if (!ok) {
      std::remove(tmp.c_str());
      warn_once(std::string("cannot be written (") + std::strerror(errno) + "); choices kept in memory only");
    }
    ::flock(lock_fd, LOCK_UN);
    ::close(lock_fd);
  }

  std::string path_;
  mutable std::mutex mutex_;
  Records records_;
  std::vector<std::string> warnings_;
  bool foreign_file_ = false;
};

}  // namespace tuning
}  // namespace kbla
