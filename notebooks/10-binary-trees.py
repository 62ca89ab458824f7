# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Binary trees across allocators and collectors
#
# The same question from another angle: what does a small object cost, depending on who hands
# out its memory and who takes it back? The benchmarks game's binary-trees program builds one
# long-lived tree of two-word nodes, then builds, checks and drops millions of short-lived ones.
#
# | language | variants |
# | --- | --- |
# | C | glibc malloc, jemalloc, mimalloc, tcmalloc, the Boehm collector four ways, an arena |
# | C++ | new/delete, a pool |
# | Rust | the system allocator, dlmalloc unlocked and behind a lock |
# | Java | every collector of JDK 11, 17, 21 and 25 |
# | others | Go, OCaml, Nim, D |
#
# Every variant prints the same check lines. The original benchmark (a binary-trees repository
# comparing allocators) ran each variant once on a Mac in 2019. Its figures stand beside ours,
# labelled "original", and each of its claims is checked below. It measures one synthetic load:
# two-word objects, most of the heap kept alive, no other work between allocations.

# %% tags=["parameters"]
from allocorpool import settings

profile = settings.profile_name()
data_dir = settings.data_dir() or ""  # empty: data/<profile>

# %%
from allocorpool import profiles
from allocorpool.chapters import binary_trees as chapter
from allocorpool.chapters import binary_trees_claims
from allocorpool.chapters.page import display as show
from allocorpool.run.experiments import binary_trees

seed = chapter.load_seed()
prof = profiles.profile(profile)
plan = prof.binary_trees
show.note(f"Depth {' and '.join(map(str, plan.depths))}, {show.count(plan.repetitions, 'run')} of each "
          f"variant. A run may take {plan.timeout_s:,.0f} s before it is stopped and recorded as timed out.")

# %% tags=["progress"]
results = binary_trees.sweep(prof, data_dir or None)

# %% [markdown]
# ## The table
#
# Each figure is the median of the runs. Wall time is taken around the process; user and sys
# time and peak memory come from the kernel's account of the finished process. The spread runs
# from the fastest to the slowest run. Pauses are shown where the runtime reports them, and the
# pause source says what was measured.
#
# The original's columns are its single run of the same variant, at its nearest depth, on its
# Mac. The "/ jemalloc" columns divide each study's time by its own jemalloc row: the only way
# to set two machines and two depths side by side.

# %%
show.show_table(chapter.machine_table(results), caption="Where the runs were measured")
chapter.show_failures(results)
tables = {depth: chapter.with_seed(results.table, seed, depth) for depth in plan.depths}
drawn = chapter.drawn(tables)  # says which depths have no finished run: their tables and figures are left out
for depth, rows in drawn.items():
    show.show_table(chapter.results_table(rows), caption=f"Binary trees at depth {depth}: time", precision=2)
    show.show_table(chapter.memory_table(rows), caption=f"Binary trees at depth {depth}: memory and pauses",
                    precision=2)
if drawn:
    show.show_details("How each variant's pauses were read, and its runtime and compiler",
                      chapter.provenance_table(next(iter(drawn.values()))))

# %% [markdown]
# ## Time per variant
#
# Bars are wall time, diamonds user time: a diamond right of its bar is a program that kept more
# than one core busy. The right-hand panel puts each variant's time over its study's jemalloc
# time, ours and the original's.

# %%
for depth, rows in drawn.items():
    show.show_figure(chapter.time_figure(rows, depth))

# %% [markdown]
# ## Pauses
#
# For the explicit variants (C, C++ and Rust) a pause is the deallocation of one whole tree,
# timed by the program: the program can do nothing else meanwhile, as in a collector's pause.
# The collectors' pauses are what each runtime reports: Boehm's statistics (world-stopped
# marking and what follows it under its lock), the JVM's unified GC log, Go's gctrace (its two
# stop-the-world phases per cycle), D's GC profile and Nim refc's statistics (both in whole
# milliseconds). OCaml 4, Nim's mark-and-sweep and ORC report no pause times: they are absent
# from this figure, not zero.

# %%
for depth, rows in drawn.items():
    show.show_figure(chapter.pause_figure(rows, depth))

# %% [markdown]
# ## CPU against wall time
#
# Collectors that mark in parallel or concurrently, and the JVM's compiler threads, use more
# CPU time than wall time, as far as the machine has cores to give them: above the diagonal.

# %%
for depth, rows in drawn.items():
    show.show_figure(chapter.cpu_figure(rows, depth))

# %% [markdown] tags=["lead"]
# ## The original benchmark's claims, checked here
#
# Each claim is checked at the largest depth of this profile that has results, on the runs
# of the variants it names. A comparison is the ratio of two medians over the runs, with its 95 %
# bootstrap interval. It holds where the interval clears parity by 5 % in the claimed direction,
# and fails where it clears it the other way. Otherwise it reads "undecided"; with
# fewer than two runs a side, "not measured". A claim over many pairs counts them. The original's
# figures, one run each on another machine, stand beside as context: a single figure decides nothing.

# %% tags=["lead"]
deepest = chapter.deepest_measured(tables)
show.note(f"Checked at depth {deepest}.")
binary_trees_claims.show_claims(binary_trees_claims.claims(tables[deepest], results.runs, seed))

# %% [markdown]
# ## How many runs finished
#
# A run that failed or timed out is listed with its error under the first table.

# %%
show.note(f"Of the chapter's {len(results.runs)} runs, {len(results.runs) - len(results.failures) - len(results.missing)} "
          f"finished, {len(results.failures)} failed or timed out, and {len(results.missing)} are not measured.")
if prof.name == "ci":
    chapter.raise_if_failed(results)
