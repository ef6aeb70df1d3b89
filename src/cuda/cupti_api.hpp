// CUPTI's functions as pinbench calls them: looked up with dlsym() in a CUPTI that was
// dlopen()ed, so neither pinbench nor a program under `pinbench doctor` needs CUPTI to build,
// link or start. One table for both users, the tool's own trace (cuda/cupti_trace.cpp) and
// doctor's injection library (experiments/doctor/inject/inject.cpp); the injection library
// links nothing of ours, so this is header-only and needs CUPTI's headers and <dlfcn.h> alone.
// CUPTI's headers are used for types and constants only.
#pragma once

#include <cupti.h>
#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pinbench::cuda {

struct CuptiApi {
  void* handle = nullptr;
  decltype(&cuptiGetVersion) get_version = nullptr;
  decltype(&cuptiGetResultString) result_string = nullptr;
  decltype(&cuptiGetTimestamp) timestamp = nullptr;
  decltype(&cuptiSubscribe) subscribe = nullptr;
  decltype(&cuptiUnsubscribe) unsubscribe = nullptr;
  decltype(&cuptiEnableCallback) enable_callback = nullptr;
  decltype(&cuptiGetCallbackName) callback_name = nullptr;
  decltype(&cuptiActivityEnable) activity_enable = nullptr;
  decltype(&cuptiActivityDisable) activity_disable = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&cuptiActivityGetNextRecord) next_record = nullptr;
  decltype(&cuptiActivityGetNumDroppedRecords) dropped_records = nullptr;
  // Optional: null where the CUPTI found has none, and then not called.
  decltype(&cuptiActivityFlushPeriod) flush_period = nullptr;
  decltype(&cuptiActivityConfigureUnifiedMemoryCounter) configure_unified_memory = nullptr;

  // Loads CUPTI from `path`. False when dlopen() does not take it; dlerror() then says why.
  bool open(const char* path) {
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    return handle != nullptr;
  }

  // Loads the first of `candidates` that dlopen() takes; false, as open(), when none does.
  bool open_first(const std::vector<std::string>& candidates) {
    for (const std::string& path : candidates) {
      if (!path.empty() && open(path.c_str())) return true;
    }
    return false;
  }

  // Looks every function up in the loaded CUPTI. Returns the name of the first function that
  // must be there and is not (the CUPTI is then unusable), or nullptr.
  const char* bind() {
    const char* missing = nullptr;
    const auto need = [&](auto& fn, const char* name) {
      if (!look_up(fn, name) && missing == nullptr) missing = name;
    };
    need(get_version, "cuptiGetVersion");
    need(result_string, "cuptiGetResultString");
    need(timestamp, "cuptiGetTimestamp");
    need(subscribe, "cuptiSubscribe");
    need(unsubscribe, "cuptiUnsubscribe");
    need(enable_callback, "cuptiEnableCallback");
    need(callback_name, "cuptiGetCallbackName");
    need(activity_enable, "cuptiActivityEnable");
    need(activity_disable, "cuptiActivityDisable");
    need(register_callbacks, "cuptiActivityRegisterCallbacks");
    need(flush_all, "cuptiActivityFlushAll");
    need(next_record, "cuptiActivityGetNextRecord");
    need(dropped_records, "cuptiActivityGetNumDroppedRecords");
    look_up(flush_period, "cuptiActivityFlushPeriod");
    look_up(configure_unified_memory, "cuptiActivityConfigureUnifiedMemoryCounter");
    return missing;
  }

  // For a buffer-completed callback: hands each activity record of `buffer` to `take`, then
  // returns how many records CUPTI says it dropped for the context and stream (0 when it
  // cannot say).
  template <typename Take>
  std::size_t read_buffer(CUcontext context, std::uint32_t stream, std::uint8_t* buffer,
                          std::size_t valid, Take&& take) const {
    CUpti_Activity* record = nullptr;
    while (valid > 0 && next_record(buffer, valid, &record) == CUPTI_SUCCESS) take(record);
    std::size_t dropped = 0;
    return dropped_records(context, stream, &dropped) == CUPTI_SUCCESS ? dropped : 0;
  }

 private:
  template <typename F>
  bool look_up(F& fn, const char* name) {
    fn = reinterpret_cast<F>(dlsym(handle, name));
    return fn != nullptr;
  }
};

}  // namespace pinbench::cuda
