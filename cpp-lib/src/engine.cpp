// The engine's run (see engine.hpp): everything between main() and the model.
#include "engine.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "alloc_counter.hpp"
#include "allocator_select.hpp"
#include "any_model.hpp"
#include "counting_pass.hpp"
#include "host_info.hpp"
#include "native_queue/dual_array_queue.hpp"
#include "options.hpp"
#include "records.hpp"
#include "runner.hpp"

namespace cpp_engine {

namespace {

constexpr int exit_failed = 1;
constexpr int exit_usage = 2;

// Writes each period as a record and as a human line on standard error.
class EngineObserver final : public RunObserver {
public:
    EngineObserver(RecordWriter& writer, bool realtime, std::uint32_t threads)
        : writer_(writer), realtime_(realtime), threads_(threads) {}

    void on_period(const PeriodStats& period) override {
        writer_.write(periodic_record(period, threads_));
        const double ns =
                period.packets != 0 ? period.period_s * 1e9 * threads_ / static_cast<double>(period.packets) : 0;
        if (realtime_) {
            std::fprintf(stderr, "%7.1f s %12llu packets %8.1f ns/packet  lost %llu (total %llu)%s\n", period.t_s,
                         static_cast<unsigned long long>(period.packets), ns,
                         static_cast<unsigned long long>(period.lost),
                         static_cast<unsigned long long>(period.lost_total), period.warmup ? "  warm-up" : "");
        } else {
            std::fprintf(stderr, "%7.1f s %12llu packets %8.1f ns/packet%s\n", period.t_s,
                         static_cast<unsigned long long>(period.packets), ns, period.warmup ? "  warm-up" : "");
        }
    }

private:
    RecordWriter& writer_;
    bool realtime_;
    std::uint32_t threads_;
};

void on_signal(int signal) { request_stop(signal); }

std::vector<std::string> arguments(int argc, char** argv) {
    std::vector<std::string> args;
    for (int i = 1; i < argc; ++i) {
        args.emplace_back(argv[i]);
    }
    return args;
}

// Records why the run failed: the error's text and its code.
void fail(SummaryInputs& summary, Failure failure, const std::string& error) {
    summary.error = error;
    summary.failure = failure;
}

// Builds the model, fills it and runs it (batch or real time) into summary; the model outlives the summary,
// tearing it down comes after the last record.
std::unique_ptr<AnyModel> measure(const Options& options, const RunDescription& description,
                                  Clock::time_point origin, RunTimeline& timeline, SummaryInputs& summary) {
    const bool realtime = options.mode == Mode::realtime;
    summary.interval_ns = realtime ? options.interval_ns : std::nullopt;
    std::unique_ptr<AnyModel> model;
    try {
        model = make_model(options.design, options.strategy, options.source, description.params,
                           static_cast<std::uint64_t>(options.seed), options.threads,
                           options.strong_scaling);
        const Clock::time_point fill_deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                                       std::chrono::duration<double>(
                                                                               options.duration_s + fill_grace_s));
        summary.fill = model->fill(origin, fill_deadline);
        std::fprintf(stderr, "cpp_engine: fill phase: %llu packets in %.3f s\n",
                     static_cast<unsigned long long>(summary.fill->packets), summary.fill->seconds);
        if (realtime) {
            summary.ticks = model->run_realtime(
                    {*options.interval_ns, options.producer_cpu, options.consumer_cpu, description.input_queue_size},
                    timeline);
            if (!summary.ticks->balanced()) {
                fail(summary, Failure::tick_imbalance, "tick accounting does not balance: " + summary.ticks->describe());
            }
        } else {
            model->run_batch(timeline);
        }
        if (const auto broken = model->conservation_error(); broken && !summary.error) {
            fail(summary, Failure::pool_accounting, *broken);
        }
    } catch (const std::exception& error) {
        fail(summary, failure_of(error), error.what());
    }
    return model;
}

// Allocations per measured packet: counted in this run by the counting build, else by its separate pass.
void count_allocations_into(const Options& options, SummaryInputs& summary) {
    if (!options.count_allocations || summary.error) {
        return;
    }
    if (alloc_counter::counting()) {
        if (summary.totals.measured_packets != 0) {
            summary.allocations = AllocationCount{static_cast<double>(summary.totals.measured_allocations) /
                                                          static_cast<double>(summary.totals.measured_packets),
                                                  summary.totals.measured_packets};
        }
        return;
    }
    try {
        summary.allocations = count_allocations(options);
    } catch (const std::exception& error) {
        fail(summary, failure_of(error), error.what());
    }
}

// The run's last human lines on standard error.
void report(const SummaryInputs& summary) {
    const RunTotals& totals = summary.totals;
    const auto measured = static_cast<double>(totals.measured_packets);
    const double ns = measured != 0 ? totals.measured_s * 1e9 * summary.threads / measured : 0;
    const std::string allocations =
            summary.allocations ? std::to_string(summary.allocations->per_packet) + " allocations/packet" : "not counted";
    std::fprintf(stderr, "cpp_engine: %s: %llu packets measured in %.3f s, %.1f ns/packet, %s%s%s\n",
                 summary.error ? "error" : "ok", static_cast<unsigned long long>(totals.measured_packets),
                 totals.measured_s, ns, allocations.c_str(), summary.error ? ": " : "",
                 summary.error ? summary.error->c_str() : "");
    if (summary.ticks) {
        std::fprintf(stderr, "cpp_engine: ticks: %s; %s\n", summary.ticks->describe().c_str(),
                     summary.ticks->balanced() ? "balanced" : "NOT BALANCED");
    }
}

// What is run, on standard error, before the model is built.
void announce(const Options& options, const CaseParams& params, const AllocatorInfo& allocator) {
    const std::string threads =
            options.threads != 0 ? " on " + std::to_string(options.threads) + " thread(s)" : std::string();
    std::fprintf(stderr,
                 "cpp_engine: design %s, strategy %s%s, case %s (queue %u, store %u, scale %g), source %s, %s mode, "
                 "allocator %s (%s, malloc from %s)\n",
                 options.design.c_str(), options.strategy.c_str(), threads.c_str(), options.case_name.c_str(),
                 params.internal_queue_size, params.stored_count, options.scale, options.source.c_str(),
                 options.mode == Mode::realtime ? "realtime" : "batch", allocator.name.c_str(),
                 allocator.version.c_str(), allocator.malloc_provider.c_str());
}

// The summary's last inputs once the run has ended: the pool's counts, the timeline's totals, the
// threads' shares, an interruption, and the allocation counting pass.
void finish_summary(const AnyModel* model, const RunTotals& totals, const Options& options, SummaryInputs& summary) {
    if (model && model->is_pool()) {
        summary.pool = model->counts();
    }
    summary.totals = totals;
    if (model) {
        summary.thread_share_min = model->thread_share_min();
    }
    if (summary.totals.stop_signal != 0 && !summary.error) {
        fail(summary, Failure::interrupted, "interrupted by signal " + std::to_string(summary.totals.stop_signal));
    }
    count_allocations_into(options, summary);
}

}  // namespace

int run_engine(int argc, char** argv) {
    const std::string started_utc = utc_now_iso8601();

    const ParseResult parsed = parse_options(arguments(argc, argv));
    if (parsed.help) {
        std::cout << usage();
        return 0;
    }
    if (!parsed.options) {
        std::cerr << "cpp_engine: " << parsed.error << '\n';
        return exit_usage;
    }
    const Options& options = *parsed.options;
    const bool realtime = options.mode == Mode::realtime;

    AllocatorInfo allocator;
    try {
        allocator = activate_allocator(options.allocator, argv);
    } catch (const AllocatorError& error) {
        std::cerr << "cpp_engine: " << error.what() << '\n';
        return exit_usage;
    }

    std::ofstream file;
    if (options.out != "-") {
        file.open(options.out, std::ios::out | std::ios::trunc);
        if (!file) {
            std::cerr << "cpp_engine: --out: cannot write " << options.out << '\n';
            return exit_usage;
        }
    }
    RecordWriter writer(options.out == "-" ? std::cout : file);

    const CaseParams params = run_params(options);
    RunDescription description{options,
                               params,
                               allocator,
                               host_info(),
                               random_run_id(),
                               started_utc,
                               source_commit(),
                               input_queue_size(options)};
    writer.write(header_record(description));
    // t = 0 of the run's clock: the header record. Building the model (a pool's
    // pre-allocation) and the fill phase come after it.
    const Clock::time_point origin = Clock::now();
    announce(options, params, allocator);

    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);

    const std::uint32_t threads = std::max<std::uint32_t>(1, options.threads);
    EngineObserver observer(writer, realtime, threads);
    RunTimeline timeline(options.duration_s, options.warmup_s, observer, origin);
    SummaryInputs summary;
    summary.threads = threads;
    // Outlives the summary: tearing the model down comes after the last record.
    const std::unique_ptr<AnyModel> model = measure(options, description, origin, timeline, summary);
    finish_summary(model.get(), timeline.totals(), options, summary);
    summary.peak_rss_bytes = peak_rss_bytes();
    writer.write(summary_record(summary));

    report(summary);
    return summary.error ? exit_failed : 0;
}

}  // namespace cpp_engine
