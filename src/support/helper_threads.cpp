// The helper threads (helper_threads.hpp): a pool that never ends (it lives until the process
// does, so no destructor races a task at exit), fed one job at a time per caller.
#include "support/helper_threads.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace clgemm::detail {
namespace {

struct Job {
  const std::function<void(unsigned)>* task;
  unsigned tasks;
  std::atomic<unsigned> next{0};
  std::atomic<unsigned> done{0};
  std::mutex mutex;
  std::condition_variable finished;

  // Takes tasks until none is left; true when this thread ran the last one.
  void work() {
    for (unsigned t = next++; t < tasks; t = next++) {
      (*task)(t);
      if (++done == tasks) {
        std::lock_guard<std::mutex> lock(mutex);
        finished.notify_all();
      }
    }
  }
};

class Pool {
 public:
  void post(const std::shared_ptr<Job>& job, unsigned helpers) {
    std::lock_guard<std::mutex> lock(mutex_);
    while (threads_ < helpers && threads_ < 255) {
      std::thread([this] { serve(); }).detach();
      ++threads_;
    }
    for (unsigned h = 0; h < helpers; ++h) jobs_.push_back(job);
    wake_.notify_all();
  }

 private:
  void serve() {
    for (;;) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [this] { return !jobs_.empty(); });
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      job->work();
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> jobs_;
  unsigned threads_ = 0;
};

Pool& pool() {
  static Pool* helpers = new Pool;  // never destroyed: its threads outlive static destruction
  return *helpers;
}

}  // namespace

void run_parallel(unsigned tasks, const std::function<void(unsigned)>& task) {
  if (tasks <= 1) {
    if (tasks == 1) task(0);
    return;
  }
  auto job = std::make_shared<Job>();
  job->task = &task;
  job->tasks = tasks;
  pool().post(job, tasks - 1);
  job->work();
  std::unique_lock<std::mutex> lock(job->mutex);
  job->finished.wait(lock, [&] { return job->done.load() == job->tasks; });
}

}  // namespace clgemm::detail
