// JNI entry points of allocorpool.queue.NativeClock (libnativequeue.so): a thin layer
// that validates Java's direct buffers and drives a TickProducer over them (or a
// FanOutTickProducer over several consumers' queues). The logic
// lives in the headers; see NativeClock.java for the contract.
#include <jni.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "native_queue/cpu_affinity.hpp"
#include "native_queue/dual_array_queue.hpp"
#include "native_queue/tick_producer.hpp"
#include "native_queue/tsc_clock.hpp"

namespace {

using native_queue::TickProducer;

constexpr jlong control_bytes = 2 * native_queue::cache_line_bytes;

void throw_java(JNIEnv* env, const char* class_name, const std::string& message) {
    if (jclass type = env->FindClass(class_name)) {
        env->ThrowNew(type, message.c_str());
    }  // else FindClass has left a NoClassDefFoundError pending
}

void throw_illegal_argument(JNIEnv* env, const std::string& message) {
    throw_java(env, "java/lang/IllegalArgumentException", message);
}

// The address of a direct buffer of at least `min_bytes`, or nullptr with an exception pending.
void* direct_address(JNIEnv* env, jobject buffer, const char* name, jlong min_bytes) {
    void* address = buffer != nullptr ? env->GetDirectBufferAddress(buffer) : nullptr;
    if (address == nullptr) {
        throw_illegal_argument(env, std::string(name) + " must be a direct ByteBuffer");
        return nullptr;
    }
    const jlong capacity = env->GetDirectBufferCapacity(buffer);
    if (capacity < min_bytes) {
        throw_illegal_argument(env, std::string(name) + " holds " + std::to_string(capacity) + " bytes, needs " +
                                            std::to_string(min_bytes));
        return nullptr;
    }
    return address;
}

// The queue over a Java DualArrayQueue's direct buffers (slots: 2 * size ints; control: read_limit at
// offset 0, done at 64, both zero), or false with an IllegalArgumentException pending.
bool queue_view(JNIEnv* env, jobject slots, jobject control, jint size, native_queue::QueueView& queue) {
    auto* slot_memory = static_cast<std::uint32_t*>(
            direct_address(env, slots, "slots", 2 * static_cast<jlong>(size) * jlong{sizeof(std::uint32_t)}));
    if (slot_memory == nullptr) {
        return false;
    }
    if (reinterpret_cast<std::uintptr_t>(slot_memory) % alignof(std::uint32_t) != 0) {
        throw_illegal_argument(env, "slots must be 4-byte aligned");
        return false;
    }
    auto* control_memory = static_cast<std::uint8_t*>(direct_address(env, control, "control", control_bytes));
    if (control_memory == nullptr) {
        return false;
    }
    if (reinterpret_cast<std::uintptr_t>(control_memory) % native_queue::cache_line_bytes != 0) {
        throw_illegal_argument(env, "control must be 64-byte aligned (ByteBuffer.alignedSlice(64))");
        return false;
    }
    queue = {slot_memory,
             reinterpret_cast<std::uint32_t*>(control_memory + offsetof(native_queue::QueueControl, read_limit)),
             reinterpret_cast<std::uint32_t*>(control_memory + offsetof(native_queue::QueueControl, done)),
             static_cast<std::uint32_t>(size)};
    if (*queue.read_limit != 0 || *queue.done != 0) {
        throw_illegal_argument(env, "control block is not zero (read_limit=" + std::to_string(*queue.read_limit) +
                                            ", done=" + std::to_string(*queue.done) + "): a queue serves one run");
        return false;
    }
    return true;
}

// The clock's settings shared by one queue and a fan-out, checked; false with an exception pending.
bool check_clock(JNIEnv* env, jint size, jlong interval_ns, jint producer_cpu) {
    if (size <= 0) {
        throw_illegal_argument(env, "size must be positive, got " + std::to_string(size));
        return false;
    }
    if (interval_ns < 0) {
        throw_illegal_argument(env, "intervalNs must be >= 0 (0: as fast as possible), got " +
                                            std::to_string(interval_ns));
        return false;
    }
    if (producer_cpu != -1 && !native_queue::cpu_exists(producer_cpu)) {
        throw_illegal_argument(env, "producerCpu must be -1 (no pinning) or a CPU in " +
                                            native_queue::cpu_range_text() + ", got " + std::to_string(producer_cpu));
        return false;
    }
    return true;
}

// A clock thread of type Producer over `queues` (one QueueView, or a fan-out's vector) as a handle, or 0
// with an exception pending.
template <class Producer>
jlong start_producer(JNIEnv* env, typename Producer::Queues queues, jlong interval_ns, jint producer_cpu) {
    try {
        return reinterpret_cast<jlong>(
                new Producer(std::move(queues), static_cast<std::uint64_t>(interval_ns), static_cast<int>(producer_cpu)));
    } catch (const std::system_error& e) {
        throw_illegal_argument(env, e.what());
    } catch (const std::exception& e) {
        throw_java(env, "java/lang/IllegalStateException", std::string("cannot start the native clock: ") + e.what());
    }
    return 0;
}

template <class Producer>
Producer* handle_of(JNIEnv* env, jlong handle) {
    if (handle == 0) {
        throw_illegal_argument(env, "no native clock: handle is 0");
        return nullptr;
    }
    return reinterpret_cast<Producer*>(handle);
}

// Joins the clock thread into `stats`; false with an exception pending, and then the caller must not delete
// the producer: destroying one whose thread cannot be joined would end the JVM.
template <class Producer>
bool join_producer(JNIEnv* env, Producer* producer, native_queue::ProducerStats& stats) {
    try {
        stats = producer->join();
    } catch (const std::exception& e) {
        throw_java(env, "java/lang/IllegalStateException", std::string("cannot join the native clock: ") + e.what());
        return false;
    }
    return true;
}

// {emitted, written, dropped, undelivered} of each queue in turn, as a new long[], or null with an exception pending.
jlongArray counts_array(JNIEnv* env, const std::vector<native_queue::ProducerStats>& stats) {
    std::vector<jlong> counts;
    for (const native_queue::ProducerStats& s : stats) {
        counts.insert(counts.end(), {static_cast<jlong>(s.emitted), static_cast<jlong>(s.written),
                                     static_cast<jlong>(s.dropped), static_cast<jlong>(s.undelivered)});
    }
    jlongArray result = env->NewLongArray(static_cast<jsize>(counts.size()));
    if (result != nullptr) {
        env->SetLongArrayRegion(result, 0, static_cast<jsize>(counts.size()), counts.data());
    }
    return result;  // null with OutOfMemoryError pending when the array could not be made
}

}  // namespace

extern "C" {

JNIEXPORT jlong JNICALL Java_allocorpool_queue_NativeClock_start(JNIEnv* env, jclass, jobject slots, jobject control,
                                                                 jint size, jlong interval_ns, jint producer_cpu) {
    native_queue::QueueView queue{};
    if (!check_clock(env, size, interval_ns, producer_cpu) || !queue_view(env, slots, control, size, queue)) {
        return 0;
    }
    return start_producer<TickProducer>(env, queue, interval_ns, producer_cpu);
}

JNIEXPORT void JNICALL Java_allocorpool_queue_NativeClock_stop(JNIEnv* env, jclass, jlong handle) {
    if (TickProducer* producer = handle_of<TickProducer>(env, handle)) {
        producer->stop();
    }
}

JNIEXPORT jlongArray JNICALL Java_allocorpool_queue_NativeClock_join(JNIEnv* env, jclass, jlong handle) {
    TickProducer* producer = handle_of<TickProducer>(env, handle);
    native_queue::ProducerStats stats;
    if (producer == nullptr || !join_producer(env, producer, stats)) {
        return nullptr;
    }
    delete producer;
    return counts_array(env, {stats});
}

// Called for a sample of the packets on the consumer's hot path: no checks beyond the handle's.
JNIEXPORT jlong JNICALL Java_allocorpool_queue_NativeClock_latenessNs(JNIEnv* env, jclass, jlong handle, jlong tick) {
    const TickProducer* producer = handle_of<TickProducer>(env, handle);
    return producer == nullptr ? 0 : static_cast<jlong>(producer->lateness_ns(static_cast<std::uint64_t>(tick)));
}

// One clock feeding the queues of several consumers in turn (FanOutTickProducer): slots[k] and controls[k] are
// consumer k's DualArrayQueue, each of `size` slots per array.
JNIEXPORT jlong JNICALL Java_allocorpool_queue_NativeClock_startFanOut(JNIEnv* env, jclass, jobjectArray slots,
                                                                       jobjectArray controls, jint size,
                                                                       jlong interval_ns, jint producer_cpu) {
    if (!check_clock(env, size, interval_ns, producer_cpu)) {
        return 0;
    }
    const jsize n = slots == nullptr ? 0 : env->GetArrayLength(slots);
    if (n == 0 || controls == nullptr || env->GetArrayLength(controls) != n) {
        throw_illegal_argument(env, "a fan-out needs one or more queues, as many slots as control buffers");
        return 0;
    }
    native_queue::FanOutTickProducer::Queues queues(static_cast<std::size_t>(n));
    for (jsize k = 0; k < n; ++k) {
        jobject slot = env->GetObjectArrayElement(slots, k);
        jobject control = env->GetObjectArrayElement(controls, k);
        const bool ok = queue_view(env, slot, control, size, queues[static_cast<std::size_t>(k)]);
        env->DeleteLocalRef(slot);
        env->DeleteLocalRef(control);
        if (!ok) {
            return 0;
        }
    }
    return start_producer<native_queue::FanOutTickProducer>(env, std::move(queues), interval_ns, producer_cpu);
}

JNIEXPORT void JNICALL Java_allocorpool_queue_NativeClock_stopFanOut(JNIEnv* env, jclass, jlong handle) {
    if (auto* producer = handle_of<native_queue::FanOutTickProducer>(env, handle)) {
        producer->stop();
    }
}

JNIEXPORT jlongArray JNICALL Java_allocorpool_queue_NativeClock_joinFanOut(JNIEnv* env, jclass, jlong handle) {
    auto* producer = handle_of<native_queue::FanOutTickProducer>(env, handle);
    native_queue::ProducerStats stats;
    if (producer == nullptr || !join_producer(env, producer, stats)) {
        return nullptr;
    }
    const std::vector<native_queue::ProducerStats> per_queue = producer->queue_stats();
    delete producer;
    return counts_array(env, per_queue);
}

// As latenessNs, of the clock's own tick (tick j of queue k is the clock's tick j * n + k).
JNIEXPORT jlong JNICALL Java_allocorpool_queue_NativeClock_fanOutLatenessNs(JNIEnv* env, jclass, jlong handle,
                                                                            jlong tick) {
    const auto* producer = handle_of<native_queue::FanOutTickProducer>(env, handle);
    return producer == nullptr ? 0 : static_cast<jlong>(producer->lateness_ns(static_cast<std::uint64_t>(tick)));
}

JNIEXPORT jint JNICALL Java_allocorpool_queue_NativeClock_pinCurrentThread(JNIEnv*, jclass, jint cpu) {
    return native_queue::pin_current_thread(cpu);
}

JNIEXPORT jdouble JNICALL Java_allocorpool_queue_NativeClock_tscTicksPerNs(JNIEnv*, jclass) {
    return native_queue::has_tsc ? native_queue::ticks_per_ns() : 0.0;
}

}  // extern "C"
