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
# out its memory and who takes it back? The benchmarks game's binary-trees program builds and
# checks full binary trees of two-word nodes: one long-lived tree of the given depth stays alive
# while millions of short-lived trees are built, checked and dropped. It is written here in C
# (glibc malloc, jemalloc, mimalloc, tcmalloc, the Boehm collector four ways, an arena), C++
# (new/delete and a pool), Rust (the system allocator and dlmalloc, unlocked and behind a lock),
# Java (every collector of JDK 11, 17, 21 and 25), Go, OCaml, Nim and D, every variant printing
# the same check lines. The seed that proposed it ran it once per variant on a Mac in 2019; its
# figures appear beside ours, labelled as the seed's, and each of its claims is checked below
# against this machine's results. Like the seed, this measures one synthetic load: two-word
# objects, most of the heap kept alive, no other work between allocations.

# %% tags=["parameters"]
import os

profile = os.environ.get("ALLOC_OR_POOL_PROFILE", "quick")
data_dir = os.environ.get("ALLOC_OR_POOL_DATA", "")  # empty: data/<profile>

# %%
from allocorpool.chapters import binary_trees as chapter
from allocorpool.chapters import display as show
from allocorpool.run import binary_trees

seed = chapter.load_seed()
bt_profile = binary_trees.profile(profile)
show.note(f"Profile `{bt_profile.name}`: {bt_profile.description}; each run may take "
          f"{bt_profile.timeout_s:.0f} s before it is stopped and recorded as timed out.")

# %% tags=["progress"]
results = binary_trees.sweep(bt_profile, data_dir or None)

# %% [markdown]
# ## The table
#
# Medians of the runs (wall time around the process; user and sys time and peak RSS from the
# kernel's rusage of the finished process), the spread from the fastest to the slowest run, the
# longest pause and the pauses' total where the runtime reports them (the column *pause source*
# says what was measured), and the allocator's or runtime's version as the program reported it.
# The seed's columns are its single run of the same variant at its nearest depth on its Mac; the
# `/ jemalloc` columns divide each study's time by its own jemalloc row, the only way to set two
# machines and two depths side by side.

# %%
show.show_table(chapter.machine_table(results), caption="Where the runs were measured")
chapter.show_failures(results)
tables = {depth: chapter.with_seed(results.table, seed, depth) for depth in bt_profile.depths}
for depth, rows in tables.items():
    show.show_table(chapter.results_table(rows), caption=f"Binary trees at depth {depth}", precision=2)

# %% [markdown]
# ## Time per variant
#
# Bars are wall time, diamonds user time: a diamond right of its bar is a program that kept more
# than one core busy. The right-hand panel puts each variant's time over its study's jemalloc
# time, ours and the seed's.

# %%
for depth, rows in tables.items():
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
for depth, rows in tables.items():
    show.show_figure(chapter.pause_figure(rows, depth))

# %% [markdown]
# ## CPU against wall time
#
# Collectors that mark in parallel or concurrently, and the JVM's compiler threads, use more
# CPU time than wall time, as far as the machine has cores to give them: above the diagonal.

# %%
for depth, rows in tables.items():
    show.show_figure(chapter.cpu_figure(rows, depth))

# %% [markdown]
# ## The seed's claims, checked here
#
# Each claim below is computed from the table at the largest depth of this profile that has
# results, with the rows that decide it; "cannot be decided" means a deciding row has no results here.

# %%
deepest = chapter.deepest_measured(tables)
show.note(f"Checked at depth {deepest}.")
chapter.show_claims(chapter.claims(tables[deepest], seed))

# %% [markdown]
# ## Failures
#
# Under the `ci` profile a failed or timed-out run fails this notebook, after everything above
# has been shown.

# %%
show.note(f"{len(results.runs)} runs in this profile: {len(results.runs) - len(results.failures) - len(results.missing)} "
          f"finished, {len(results.failures)} failed or timed out, {len(results.missing)} not measured (not in the "
          "store).")
if bt_profile.name == "ci":
    chapter.raise_if_failed(results)
