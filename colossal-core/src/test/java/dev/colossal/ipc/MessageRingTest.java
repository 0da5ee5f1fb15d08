package dev.colossal.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The contract both rings keep, in one process. */
class MessageRingTest {

    @TempDir
    Path dir;

    private MessageRing ring(String kind, int capacity) {
        return IpcChild.ring(dir.resolve(kind), kind, capacity);
    }

    private static MemorySegment bytes(Arena arena, int length, int seed) {
        MemorySegment segment = arena.allocate(Math.max(1, length));
        for (int i = 0; i < length; i++) {
            segment.set(ValueLayout.JAVA_BYTE, i, (byte) (seed + i));
        }
        return segment;
    }

    private record Got(int type, byte[] bytes) {}

    private static List<Got> drain(MessageRing ring) {
        List<Got> got = new ArrayList<>();
        ring.read((type, buffer, offset, length) ->
                got.add(new Got(type, buffer.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE))));
        return got;
    }

    @ParameterizedTest
    @ValueSource(strings = {"spsc", "mpsc"})
    void shouldReadWhatWasWrittenInOrderWithTypeAndLength(String kind) {
        try (MessageRing ring = ring(kind, 1024); Arena arena = Arena.ofConfined()) {
            assertTrue(ring.write(3, bytes(arena, 5, 1), 0, 5));
            assertTrue(ring.write(4, bytes(arena, 0, 0), 0, 0));
            assertTrue(ring.write(5, bytes(arena, 17, 9), 0, 17));
            List<Got> got = drain(ring);
            assertEquals(3, got.size());
            assertEquals(3, got.get(0).type());
            assertEquals(5, got.get(0).bytes().length);
            assertEquals(2, got.get(0).bytes()[1]);
            assertEquals(0, got.get(1).bytes().length);
            assertEquals(17, got.get(2).bytes().length);
            assertEquals(9 + 16, got.get(2).bytes()[16]);
            assertEquals(0, ring.read((t, b, o, l) -> { }), "nothing left");
            assertEquals(16 + 8 + 32, ring.consumerPosition(), "records are 8-byte aligned with an 8-byte header");
        }
    }

    /** A claimed record must read as zero until its producer marks it: the consumer zeroes all it read, and only that. */
    @ParameterizedTest
    @CsvSource({"1, 0", "1, 4", "7, 60", "8, 64", "9, 64", "20, 100"})
    void manyToOneConsumerZeroesEveryByteItReadAndNoMore(int messages, int length) {
        try (MessageRing ring = ring("mpsc", 4096); Arena arena = Arena.ofConfined()) {
            MemorySegment source = bytes(arena, length, 7);
            long before = ring.consumerPosition();
            for (int i = 0; i < messages; i++) {
                assertTrue(ring.write(1, source, 0, length));
            }
            assertTrue(ring.write(2, source, 0, length), "one more, left unread after the batch");
            List<Got> got = new ArrayList<>();
            ring.read((type, buffer, offset, size) -> got.add(new Got(type, null)), messages);
            assertEquals(messages, got.size());
            long read = ring.consumerPosition() - before;
            assertEquals(messages * ((length + 8 + 7L) & -8), read);
            MemorySegment data = ring.buffer();
            for (long i = 0; i < read; i++) {
                assertEquals(0, data.get(ValueLayout.JAVA_BYTE, i), "byte " + i + " of " + read + " consumed");
            }
            assertEquals(2, drain(ring).getFirst().type(), "the record after the batch is untouched");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"spsc", "mpsc"})
    void shouldReportFullRatherThanOverwrite(String kind) {
        try (MessageRing ring = ring(kind, 256); Arena arena = Arena.ofConfined()) {
            MemorySegment message = bytes(arena, 24, 0);
            int written = 0;
            while (ring.write(1, message, 0, 24)) {
                written++;
            }
            // One producer keeps the 8 bytes after its newest record zeroed, so it fits one fewer.
            assertEquals(kind.equals("spsc") ? 7 : 8, written);
            assertEquals(1, ring.read((t, b, o, l) -> { }, 1));
            assertTrue(ring.write(1, message, 0, 24), "room again after a read");
            assertFalse(ring.write(1, message, 0, 24));
            assertEquals(written, drain(ring).size() + drain(ring).size());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"spsc", "mpsc"})
    void shouldInsertPaddingRecordPlusMessageOnBufferWrap(String kind) {
        try (MessageRing ring = ring(kind, 256); Arena arena = Arena.ofConfined()) {
            MemorySegment message = bytes(arena, 24, 0);
            for (int i = 0; i < 13; i++) {
                assertTrue(ring.write(1, message, 0, 8));      // 16 bytes each: 208 of 256
            }
            assertEquals(13, drain(ring).size());
            assertTrue(ring.write(2, message, 0, 16), "24 bytes: 48 left to the end, fits");
            assertTrue(ring.write(4, message, 0, 24), "32 bytes: 24 left, so padding of 24 then index 0");
            assertEquals(208 + 24 + 24 + 32, ring.producerPosition());
            List<Got> first = drain(ring);
            assertEquals(List.of(2), first.stream().map(Got::type).toList(), "a batch stops at the end");
            List<Got> second = drain(ring);
            assertEquals(List.of(4), second.stream().map(Got::type).toList(), "padding is never delivered");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"spsc", "mpsc"})
    void shouldRejectMisuseWithTheValueNamed(String kind) {
        try (MessageRing ring = ring(kind, 256); Arena arena = Arena.ofConfined()) {
            MemorySegment message = bytes(arena, 64, 0);
            var tooLong = assertThrows(IllegalArgumentException.class, () -> ring.write(1, message, 0, 33));
            assertTrue(tooLong.getMessage().contains("length=33") && tooLong.getMessage().contains("maxMessageLength=32"));
            var badType = assertThrows(IllegalArgumentException.class, () -> ring.write(0, message, 0, 8));
            assertTrue(badType.getMessage().contains("type=0"));
            assertThrows(IllegalArgumentException.class, () -> ring.commit(8));
            assertEquals(0, ring.producerPosition(), "a rejected write claims nothing");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"spsc", "mpsc"})
    void claimedMessagesAreDeliveredOnCommitAndSkippedOnAbort(String kind) {
        try (MessageRing ring = ring(kind, 1024)) {
            long a = ring.tryClaim(7, 8);
            long b = ring.tryClaim(8, 8);
            ring.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED, a, 11L);
            ring.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED, b, 12L);
            assertEquals(0, drain(ring).size(), "nothing before the first commit");
            ring.abort(a);
            ring.commit(b);
            List<Got> got = drain(ring);
            assertEquals(1, got.size());
            assertEquals(8, got.get(0).type());
            assertEquals(12, got.get(0).bytes()[0]);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"spsc", "mpsc"})
    void unblockSkipsARecordLeftBeingWrittenAndKeepsTheOnesAfter(String kind) {
        try (MessageRing ring = ring(kind, 1024); Arena arena = Arena.ofConfined()) {
            ring.write(1, bytes(arena, 8, 0), 0, 8);
            ring.tryClaim(2, 40);                              // its producer "dies" here
            ring.write(3, bytes(arena, 8, 0), 0, 8);
            assertEquals(1, drain(ring).size());
            assertEquals(0, drain(ring).size(), "stuck behind the unfinished record");
            assertTrue(ring.unblock());
            assertEquals(List.of(3), drain(ring).stream().map(Got::type).toList());
            assertFalse(ring.unblock(), "nothing left to unblock");
        }
    }

    /** Only many producers can die between claim and mark: one producer marks before moving the tail. */
    @Test
    void unblockSkipsSpaceClaimedByAProducerThatDiedBeforeMarkingIt() {
        try (MessageRing ring = ring("mpsc", 1024); Arena arena = Arena.ofConfined()) {
            ring.write(1, bytes(arena, 8, 0), 0, 8);
            assertTrue(((ManyToOneRing) ring).claimSpace(((ManyToOneRing) ring).ring, 48) >= 0);   // claimed, header never written
            ring.write(3, bytes(arena, 8, 0), 0, 8);
            assertEquals(List.of(1), drain(ring).stream().map(Got::type).toList());
            assertEquals(0, drain(ring).size(), "stuck behind the unmarked claim");
            assertTrue(ring.unblock());
            assertEquals(List.of(3), drain(ring).stream().map(Got::type).toList());
            assertEquals(ring.producerPosition(), ring.consumerPosition());
        }
    }

    /** Failing on the first message of a batch too, which is handed over before the rest is scanned. */
    @ParameterizedTest
    @CsvSource({"spsc, 1", "spsc, 2", "mpsc, 1", "mpsc, 2"})
    void aHandlerThatThrowsConsumesUpToItsMessageAndNoFurther(String kind, int failing) {
        try (MessageRing ring = ring(kind, 1024); Arena arena = Arena.ofConfined()) {
            for (int type = 1; type <= 3; type++) {
                ring.write(type, bytes(arena, 8, 0), 0, 8);
            }
            assertThrows(IllegalStateException.class, () -> ring.read((type, b, o, l) -> {
                if (type == failing) {
                    throw new IllegalStateException("handler failed");
                }
            }));
            assertEquals(List.of(2, 3).subList(failing - 1, 2), drain(ring).stream().map(Got::type).toList());
        }
    }

    /** The first message is handed over before the batch is scanned: what its handler writes comes in the same read. */
    @ParameterizedTest
    @ValueSource(strings = {"spsc", "mpsc"})
    void theFirstMessageIsHandedOverBeforeTheRestOfTheBatchIsLookedAt(String kind) {
        try (MessageRing ring = ring(kind, 1024); Arena arena = Arena.ofConfined()) {
            MemorySegment reply = bytes(arena, 8, 0);
            ring.write(1, bytes(arena, 8, 0), 0, 8);
            List<Integer> types = new ArrayList<>();
            int read = ring.read((type, b, o, l) -> {
                types.add(type);
                if (type == 1) {
                    assertTrue(ring.write(2, reply, 0, 8));
                }
            });
            assertEquals(2, read);
            assertEquals(List.of(1, 2), types);
            assertEquals(ring.producerPosition(), ring.consumerPosition());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"spsc", "mpsc"})
    void heartbeatIsSharedThroughTheRegion(String kind) {
        try (MessageRing consumer = ring(kind, 256); MessageRing producer = ring(kind, 256)) {
            assertEquals(0, producer.consumerHeartbeat());
            assertFalse(producer.isConsumerAlive(1234L, 1000), "a consumer that never beat is not alive");
            consumer.consumerHeartbeat(1234L);
            assertEquals(1234L, producer.consumerHeartbeat());
            assertTrue(producer.isConsumerAlive(2000L, 1000));
            assertFalse(producer.isConsumerAlive(3000L, 1000), "silent for longer than the timeout");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"spsc", "mpsc"})
    void closeIsIdempotentAndUseAfterCloseNamesTheRing(String kind) {
        MessageRing ring = ring(kind, 1024);
        ring.close();
        ring.close();
        for (var call : List.<Executable>of(ring::producerPosition,
                ring::consumerPosition, ring::unblock, ring::consumerHeartbeat, () -> ring.consumerHeartbeat(1),
                ring::buffer)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, call);
            assertTrue(e.getMessage().contains("ring " + dir.resolve(kind) + " was closed"), e.getMessage());
        }
        // the paths that move messages keep the JDK's check, documented on close()
        assertThrows(IllegalStateException.class, () -> drain(ring));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 100, 63})
    void capacityMustBeAPowerOfTwoOfAtLeast64(int capacity) {
        var e = assertThrows(IllegalArgumentException.class, () -> MessageRing.oneToOne(dir.resolve("x"), capacity));
        assertTrue(e.getMessage().contains("capacity=" + capacity));
    }

    @Test
    void anotherCapacityIsRefusedInTermsOfCapacity() {
        Path path = dir.resolve("cap");
        try (MessageRing ring = MessageRing.manyToOne(path, 4096);
             BroadcastTransmitter tx = BroadcastTransmitter.open(dir.resolve("bcast"), 1024)) {
            for (Executable call : List.<Executable>of(() -> MessageRing.manyToOne(path, 8192),
                    () -> BroadcastReceiver.open(dir.resolve("bcast"), 2048))) {
                IpcException e = assertThrows(IpcException.class, call);
                assertTrue(e.getMessage().matches(".* has capacity=(4096|1024) but capacity=(8192|2048) was asked for.*"),
                        e.getMessage());
            }
            assertEquals(1024, tx.capacity());
            ring.write(1, MemorySegment.ofArray(new byte[8]), 0, 8);
            assertEquals(1, ring.read((type, buffer, offset, length) -> { }), "the ring is untouched");
        }
    }
}
