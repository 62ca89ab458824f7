# The event echo (seed 004, notebook 11): its Maven project event-echo/ (Chronicle Wire channels and
# plain NIO over loopback, the JMH allocation loop), its JUnit and driver tests. Included by the
# top-level Makefile (ROOT, BUILD, VENV, PY, MVN, COMMIT come from there).

EVENT_ECHO_JAR := event-echo/target/event-echo.jar

.PHONY: event-echo test-event-echo clean-event-echo record-echo

event-echo:
	cd event-echo && $(MVN) -q -DskipTests package

# JUnit (every event back intact, counts balanced, bad options refused), then the driver's tests
# (sample records, a fake program: failures, timeouts, resume; test-python runs them too, in 4 s).
test-event-echo: env event-echo
	cd event-echo && $(MVN) test
	cd python && $(PY) -m pytest -q tests/test_event_echo*.py

# The echo's runs at a profile's size (PROFILE=full: about 25 minutes a pair), one JDK and collector pair at a time,
# each committed as it finishes, as `make record` does; a pair already stored is skipped (ONLY= names some, 17:g1).
record-echo: committed env jdks event-echo
	@set -o pipefail; boot=$$(cut -c1-8 /proc/sys/kernel/random/boot_id); \
	for pair in $(or $(ONLY),$$($(PY) -m allocorpool.run.experiments.event_echo --profile $(PROFILE) --list)); do \
	  $(PY) -m allocorpool.run.experiments.event_echo --profile $(PROFILE) --pair $$pair \
	    | tee $(BUILD)/record-echo-$$(echo $$pair | tr : -).txt; \
	  git add data/$(PROFILE) && git commit -q -F - -- data/$(PROFILE) <<< "data: $(PROFILE) echo runs of JDK $$pair, boot $$boot"$$'\n\n'"$$(cat $(BUILD)/record-echo-$$(echo $$pair | tr : -).txt)" || true; \
	done

clean-event-echo:
	rm -rf event-echo/target

build: event-echo
clean: clean-event-echo
TEST_SUITES += test-event-echo
# Notebook 11 runs the echo under the ci profile.
test-notebooks: event-echo
TEST_BUILDS += event-echo
