package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.google.common.collect.testing.ConcurrentMapTestSuiteBuilder;
import com.google.common.collect.testing.TestStringMapGenerator;
import com.google.common.collect.testing.features.CollectionFeature;
import com.google.common.collect.testing.features.CollectionSize;
import com.google.common.collect.testing.features.MapFeature;
import dev.colossal.codec.Codecs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import junit.framework.Test;
import junit.framework.TestCase;
import junit.framework.TestSuite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Map and ConcurrentMap contracts as Guava's testlib checks them, every tester that applies to
 * a general-purpose concurrent map without nulls: the map itself, its key set, values and entry
 * set, their iterators, and the default methods ({@code compute*}, {@code merge},
 * {@code replaceAll}). Run on a file-backed map, an in-memory one, one closed and reopened after it
 * is filled, and a bounded cache whose entries expire, also reopened: each a new map for every test
 * (closed, and its file removed, when the test ends).
 *
 * <p>Nothing is suppressed: the map passes every check as it is. testlib's suites are JUnit 3
 * {@code TestSuite}s: each {@code TestCase} becomes a dynamic test that runs it with
 * {@code runBare()}, so that JUnit 5 alone runs them, and fails if it runs past {@link #TIMEOUT}.
 */
class MapContractTest {

    @TempDir
    static Path tempDir;

    /**
     * Where the maps' files go: tmpfs when there is one, as {@link BytesMap#inMemory} does. Each
     * suite creates some 950 maps, and creating one on disk waits for two fsyncs: 1.6 ms a map
     * against 0.45 on tmpfs.
     */
    private static Path dir;

    @BeforeAll
    static void chooseDir() throws IOException {
        Path shm = Path.of("/dev/shm");
        dir = Files.isDirectory(shm) && Files.isWritable(shm) ? Files.createTempDirectory(shm, "colossal-contract-") : tempDir;
    }

    @AfterAll
    static void removeDir() throws IOException {
        if (!dir.equals(tempDir)) {
            // With what a check that timed out left open: its files would hold tmpfs memory until reboot.
            try (Stream<Path> left = Files.walk(dir)) {
                for (Path p : (Iterable<Path>) left.sorted(java.util.Comparator.reverseOrder())::iterator) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** How long one check may run; each takes milliseconds. */
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** Small maps: a test holds a handful of entries, and a few segments make a small file. */
    private static final MapOptions SMALL = MapOptions.DEFAULTS.withSegments(4);

    /** The maps and files of the running test, closed and removed when it ends. */
    private static final List<ColossalMap<?, ?>> OPEN = new ArrayList<>();
    private static final List<Path> FILES = new ArrayList<>();
    private static int files;

    @TestFactory
    Stream<DynamicNode> fileBacked() {
        return suite("file", () -> ColossalMap.open(newFile(), Codecs.string(), Codecs.string(), SMALL), null, false);
    }

    @TestFactory
    Stream<DynamicNode> inMemory() {
        return suite("in memory", () -> ColossalMap.inMemory(Codecs.string(), Codecs.string(), SMALL), null, false);
    }

    /** The entries are written, the file closed and opened again: the map handed out reads them from the file. */
    @TestFactory
    Stream<DynamicNode> reopened() {
        return suite("reopened", () -> ColossalMap.open(newFile(), Codecs.string(), Codecs.string(), SMALL), null, true);
    }

    /**
     * A bounded cache (never full here, so nothing is evicted) whose first entries expire in an hour,
     * reopened once filled: the paths for expiring entries ({@code isEmpty}'s walk, updates that keep
     * an expiry time) and the eviction bookkeeping run under every check, on a bound and expiry
     * times read back from the file.
     */
    @TestFactory
    Stream<DynamicNode> boundedAndExpiring() {
        MapOptions bounded = SMALL.withMaxEntries(1_000).withMaxBytes(1 << 20);
        return suite("bounded, expiring, reopened", () -> ColossalMap.open(newFile(), Codecs.string(), Codecs.string(), bounded),
                Duration.ofHours(1), true);
    }

    // ------------------------------------------------------------------ plumbing

    @FunctionalInterface
    private interface Opener {
        ColossalMap<String, String> open() throws IOException;
    }

    /** The map of the running test, or null: a test that asks for another map gets this one, cleared. */
    private static ColossalMap<String, String> current;

    /**
     * The suite on maps from {@code opener}, filled with each entry in order (a later duplicate key
     * wins), expiring after {@code ttl} if given, and closed and opened again after if {@code reopen}.
     *
     * <p>A test's first map is a new one. A test that asks for more (an iterator check asks for one
     * for each of the ~190 sequences of calls it tries, two thirds of all the maps) gets the same
     * map cleared and filled again: a new file each time made the suites take twice as long.
     */
    private static Stream<DynamicNode> suite(String name, Opener opener, Duration ttl, boolean reopen) {
        TestSuite suite = ConcurrentMapTestSuiteBuilder
                .using(new TestStringMapGenerator() {
                    @Override
                    protected Map<String, String> create(Map.Entry<String, String>[] entries) {
                        try {
                            return make(opener, entries, ttl, reopen);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    }
                })
                .named("ColossalMap " + name)
                .withFeatures(
                        MapFeature.GENERAL_PURPOSE,
                        CollectionFeature.SUPPORTS_ITERATOR_REMOVE,
                        CollectionSize.ANY)
                .createTestSuite();
        return Stream.of(node(suite));
    }

    private static ColossalMap<String, String> make(Opener opener, Map.Entry<String, String>[] entries, Duration ttl,
            boolean reopen) throws IOException {
        ColossalMap<String, String> map = current;
        if (map == null) {
            map = current = opener.open();
            OPEN.add(map);
        } else {
            map.clear();
        }
        for (Map.Entry<String, String> e : entries) {
            if (ttl == null) {
                map.put(e.getKey(), e.getValue());
            } else {
                map.set(e.getKey(), e.getValue(), ttl);
            }
        }
        if (reopen) {
            Path file = map.bytes().file.path;
            map.close();
            OPEN.remove(map);
            map = current = ColossalMap.open(file, Codecs.string(), Codecs.string(), MapOptions.DEFAULTS);
            OPEN.add(map);
        }
        return map;
    }

    private static DynamicNode node(Test test) {
        if (test instanceof TestSuite suite) {
            return DynamicContainer.dynamicContainer(suite.getName(),
                    Collections.list(suite.tests()).stream().map(MapContractTest::node));
        }
        TestCase testCase = (TestCase) test;
        return DynamicTest.dynamicTest(testCase.getName(), () -> {
            try {
                // JUnit's @Timeout does not reach dynamic tests: without this a hang (a spliterator
                // that splits for ever) hung the build instead of failing one test
                assertTimeoutPreemptively(TIMEOUT, testCase::runBare, () -> testCase.getName() + " ran longer than "
                        + TIMEOUT + " (it takes milliseconds): a hang, such as an endless loop or a lock never released?");
            } finally {
                closeAll();
            }
        });
    }

    private static Path newFile() {
        Path file = dir.resolve("contract-" + files++ + ".map");
        FILES.add(file);
        return file;
    }

    private static void closeAll() throws IOException {
        try {
            for (ColossalMap<?, ?> map : OPEN) {
                map.close();
            }
            for (Path file : FILES) {
                Files.deleteIfExists(file);
            }
        } finally {
            OPEN.clear();
            FILES.clear();
            current = null;
        }
    }
}
