// JNI entry points of allocorpool.queue.NativeClock (libnativequeue.so): a thin layer
// that validates Java's direct buffers and drives a TickProducer over them. The logic
// lives in the headers; see NativeClock.java for the contract.
#include <jni.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <system_error>

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

TickProducer* producer_of(JNIEnv* env, jlong handle) {
    if (handle == 0) {
        throw_illegal_argument(env, "no native clock: handle is 0");
        return nullptr;
    }
    return reinterpret_cast<TickProducer*>(handle);
}

}  // namespace

extern "C" {

JNIEXPORT jlong JNICALL Java_allocorpool_queue_NativeClock_start(JNIEnv* env, jclass, jobject slots, jobject control,
                                                                 jint size, jlong interval_ns, jint producer_cpu) {
    if (size <= 0) {
        throw_illegal_argument(env, "size must be positive, got " + std::to_string(size));
        return 0;
    }
    if (interval_ns < 0) {
        throw_illegal_argument(env, "intervalNs must be >= 0 (0: as fast as possible), got " +
                                            std::to_string(interval_ns));
        return 0;
    }
    if (producer_cpu != -1 && !native_queue::cpu_exists(producer_cpu)) {
        throw_illegal_argument(env, "producerCpu must be -1 (no pinning) or a CPU in " +
                                            native_queue::cpu_range_text() + ", got " + std::to_string(producer_cpu));
        return 0;
    }
    auto* slot_memory = static_cast<std::uint32_t*>(
            direct_address(env, slots, "slots", 2 * static_cast<jlong>(size) * jlong{sizeof(std::uint32_t)}));
    if (slot_memory == nullptr) {
        return 0;
    }
    if (reinterpret_cast<std::uintptr_t>(slot_memory) % alignof(std::uint32_t) != 0) {
        throw_illegal_argument(env, "slots must be 4-byte aligned");
        return 0;
    }
    auto* control_memory = static_cast<std::uint8_t*>(direct_address(env, control, "control", control_bytes));
    if (control_memory == nullptr) {
        return 0;
    }
    if (reinterpret_cast<std::uintptr_t>(control_memory) % native_queue::cache_line_bytes != 0) {
        throw_illegal_argument(env, "control must be 64-byte aligned (ByteBuffer.alignedSlice(64))");
        return 0;
    }
    const native_queue::QueueView queue{
            slot_memory,
            reinterpret_cast<std::uint32_t*>(control_memory + offsetof(native_queue::QueueControl, read_limit)),
            reinterpret_cast<std::uint32_t*>(control_memory + offsetof(native_queue::QueueControl, done)),
            static_cast<std::uint32_t>(size)};
    if (*queue.read_limit != 0 || *queue.done != 0) {
        throw_illegal_argument(env, "control block is not zero (read_limit=" + std::to_string(*queue.read_limit) +
                                            ", done=" + std::to_string(*queue.done) + "): a queue serves one run");
        return 0;
    }
    try {
        return reinterpret_cast<jlong>(
                new TickProducer(queue, static_cast<std::uint64_t>(interval_ns), static_cast<int>(producer_cpu)));
    } catch (const std::system_error& e) {
        throw_illegal_argument(env, e.what());
    } catch (const std::exception& e) {
        throw_java(env, "java/lang/IllegalStateException", std::string("cannot start the native clock: ") + e.what());
    }
    return 0;
}

JNIEXPORT void JNICALL Java_allocorpool_queue_NativeClock_stop(JNIEnv* env, jclass, jlong handle) {
    if (TickProducer* producer = producer_of(env, handle)) {
        producer->stop();
    }
}

JNIEXPORT jlongArray JNICALL Java_allocorpool_queue_NativeClock_join(JNIEnv* env, jclass, jlong handle) {
    TickProducer* producer = producer_of(env, handle);
    if (producer == nullptr) {
        return nullptr;
    }
    native_queue::ProducerStats stats;
    try {
        stats = producer->join();
    } catch (const std::exception& e) {
        // Not deleted: destroying a producer whose thread cannot be joined would terminate the JVM.
        throw_java(env, "java/lang/IllegalStateException", std::string("cannot join the native clock: ") + e.what());
        return nullptr;
    }
    delete producer;
    const jlong counts[4] = {static_cast<jlong>(stats.emitted), static_cast<jlong>(stats.written),
                             static_cast<jlong>(stats.dropped), static_cast<jlong>(stats.undelivered)};
    jlongArray result = env->NewLongArray(4);
    if (result != nullptr) {
        env->SetLongArrayRegion(result, 0, 4, counts);
    }
    return result;  // null with OutOfMemoryError pending when the array could not be made
}

// Called for a sample of the packets on the consumer's hot path: no checks beyond the handle's.
JNIEXPORT jlong JNICALL Java_allocorpool_queue_NativeClock_latenessNs(JNIEnv* env, jclass, jlong handle, jlong tick) {
    const TickProducer* producer = producer_of(env, handle);
    return producer == nullptr ? 0 : static_cast<jlong>(producer->lateness_ns(static_cast<std::uint64_t>(tick)));
}

JNIEXPORT jint JNICALL Java_allocorpool_queue_NativeClock_pinCurrentThread(JNIEnv*, jclass, jint cpu) {
    return native_queue::pin_current_thread(cpu);
}

JNIEXPORT jdouble JNICALL Java_allocorpool_queue_NativeClock_tscTicksPerNs(JNIEnv*, jclass) {
    return native_queue::has_tsc ? native_queue::ticks_per_ns() : 0.0;
}

}  // extern "C"
