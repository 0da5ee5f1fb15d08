package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.codec.CodecException;
import dev.colossal.codec.Codecs;
import java.io.IOException;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Corners of the ConcurrentMap contract a user trial found: values whose {@code equals} is
 * identity (arrays), {@code replaceAll}, {@code containsValue(null)}, {@code equals} with an entry
 * expired but not yet removed, and lookups of keys the codec cannot store.
 */
class ContractEdgesTest {

    @Test
    void conditionalWritesMatchArrayValuesByTheirBytes() throws IOException {
        try (ColossalMap<String, byte[]> map = ColossalMap.inMemory(Codecs.string(), Codecs.bytes(), MapOptions.DEFAULTS)) {
            map.put("a", new byte[] {1, 2});
            map.put("b", new byte[] {3});
            assertTrue(map.replace("a", map.get("a"), new byte[] {4}), "what get returned is what is stored");
            assertArrayEquals(new byte[] {4}, map.get("a"));
            assertFalse(map.replace("a", new byte[] {1, 2}, new byte[] {5}), "other bytes do not match");
            assertFalse(map.remove("b", new byte[] {9}));
            assertFalse(map.remove("b", "not a byte array"));
            assertTrue(map.remove("b", map.get("b")));
            assertFalse(map.containsKey("b"));
        }
    }

    @Test
    void replaceAllEndsOnArrayValuesAndRefusesANullResult() throws IOException {
        try (ColossalMap<String, byte[]> map = ColossalMap.inMemory(Codecs.string(), Codecs.bytes(), MapOptions.DEFAULTS)) {
            for (int i = 0; i < 1000; i++) {
                map.put("k" + i, new byte[] {(byte) i});
            }
            // It retried replace(k, get(k), v) until it succeeded, which an array never did.
            assertTimeoutPreemptively(Duration.ofSeconds(20), () -> map.replaceAll((k, v) -> new byte[] {v[0], 9}));
            for (int i = 0; i < 1000; i++) {
                assertArrayEquals(new byte[] {(byte) i, 9}, map.get("k" + i));
            }
            NullPointerException e = assertThrows(NullPointerException.class, () -> map.replaceAll((k, v) -> null));
            assertTrue(e.getMessage().contains("replaceAll"), e.getMessage());
            assertEquals(1000, map.size(), "a null result removes nothing");
        }
    }

    @Test
    void containsValueOfNullThrowsAsAConcurrentHashMapDoes() throws IOException {
        try (ColossalMap<String, String> map = ColossalMap.inMemory(Codecs.string(), Codecs.string(), MapOptions.DEFAULTS)) {
            map.put("a", "b");
            assertThrows(NullPointerException.class, () -> map.containsValue(null));
            assertTrue(map.containsValue("b"));
        }
    }

    @Test
    void equalsStaysSymmetricWhileAnExpiredEntryAwaitsRemoval() throws IOException {
        try (ColossalMap<String, Long> map = ColossalMap.inMemory(Codecs.string(), TestCodecs.LONG, MapOptions.DEFAULTS)) {
            long[] now = {1_000_000};
            map.bytes().file.clock = () -> now[0];
            map.put("keep", 1L);
            map.set("gone", 2L, Duration.ofSeconds(1));
            now[0] += 2_000;
            Map<String, Long> keep = Map.of("keep", 1L);
            assertNull(map.get("gone"));
            assertEquals(keep.equals(map), map.equals(keep));
            assertFalse(map.equals(keep), "it still counts in size()");
            assertEquals(1, map.purgeExpired());
            assertTrue(map.equals(keep) && keep.equals(map));
            assertEquals(keep.hashCode(), map.hashCode());
        }
    }

    @Test
    void updatesKeepAnEntrysExpiryTimeAndPutDropsIt() throws IOException {
        try (ColossalMap<String, Long> map = ColossalMap.inMemory(Codecs.string(), TestCodecs.LONG, MapOptions.DEFAULTS)) {
            map.set("k", 1L, Duration.ofMinutes(30));
            long at = map.expiresAt("k");
            assertTrue(at > 0);
            map.merge("k", 1L, Long::sum);
            map.compute("k", (k, v) -> v + 1);
            map.computeIfPresent("k", (k, v) -> v + 1);
            map.replace("k", 10L);
            map.replace("k", 10L, 11L);
            map.entrySet().iterator().next().setValue(12L);
            assertEquals(12L, map.get("k"));
            assertEquals(at, map.expiresAt("k"), "every update kept the expiry time");
            map.merge("fresh", 1L, Long::sum);
            assertEquals(0, map.expiresAt("fresh"), "a new entry has none");
            map.put("k", 13L);
            assertEquals(0, map.expiresAt("k"), "put stores without expiry, as Redis SET");
        }
    }

    @Test
    void aKeyTheCodecCannotStoreIsAbsentToLookupsAndRefusedByWrites() throws IOException {
        try (ColossalMap<String, String> map = ColossalMap.inMemory(Codecs.string(), Codecs.string(), MapOptions.DEFAULTS)) {
            String lone = "user-\uD800";
            assertNull(map.get(lone));
            assertFalse(map.containsKey(lone));
            assertNull(map.remove(lone));
            assertFalse(map.remove(lone, "x"));
            assertFalse(map.keySet().remove(lone));
            assertEquals(-1, map.expiresAt(lone));
            assertThrows(CodecException.class, () -> map.put(lone, "x"));
            assertTrue(map.isEmpty());
        }
    }
    /** Guava testlib's SetEqualsTester: equals with a set holding null threw the NullPointerException of contains(null). */
    @Test
    void theSetViewsDifferFromASetHoldingNullInsteadOfThrowing() throws IOException {
        try (ColossalMap<String, String> map = ColossalMap.inMemory(Codecs.string(), Codecs.string(), MapOptions.DEFAULTS)) {
            map.put("a", "b");
            map.put("c", "d");
            assertFalse(map.keySet().equals(new HashSet<>(Arrays.asList("a", null))));
            assertFalse(map.entrySet().equals(new HashSet<>(Arrays.asList(Map.entry("a", "b"), null))));
            assertTrue(map.keySet().equals(Set.of("a", "c")));
            assertTrue(map.entrySet().equals(Set.of(Map.entry("a", "b"), Map.entry("c", "d"))));
        }
    }

    /** An entry with a null key is one the map cannot hold: not in its entry set, as in a ConcurrentHashMap's. */
    @Test
    void anEntryWithANullKeyIsNotInTheEntrySet() throws IOException {
        try (ColossalMap<String, String> map = ColossalMap.inMemory(Codecs.string(), Codecs.string(), MapOptions.DEFAULTS)) {
            map.put("a", "b");
            Map.Entry<String, String> nullKey = new AbstractMap.SimpleEntry<>(null, "b");
            assertFalse(map.entrySet().contains(nullKey));
            assertFalse(map.entrySet().remove(nullKey));
            assertFalse(map.entrySet().equals(Set.of(nullKey)));
            assertEquals(Map.of("a", "b"), map);
        }
    }
}
