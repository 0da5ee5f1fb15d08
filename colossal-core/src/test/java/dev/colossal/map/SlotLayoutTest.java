package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SlotLayoutTest {

    @Test
    void shouldRoundTripEveryTableSizeThroughItsWord() {
        long position = 1L << 44;
        long previous = 0;
        for (long entries = 1; ; entries = entries * 9 / 8 + 1) {
            long slots = SlotLayout.slotsFor(entries);
            if (slots < 0) {
                assertTrue(entries * 3 > SlotLayout.MAX_SLOTS * 2, "entries=" + entries);
                break;
            }
            assertTrue(slots >= previous && slots >= SlotLayout.MIN_SLOTS && slots <= SlotLayout.MAX_SLOTS);
            long word = SlotLayout.tableWord(position, slots);
            assertEquals(slots, SlotLayout.slots(word), "slots=" + slots);
            assertEquals(position, SlotLayout.tablePosition(word));
            previous = slots;
        }
        assertEquals(SlotLayout.MAX_SLOTS, previous);
    }

    @Test
    void shouldGrowByOneSizeOfFourPerDoublingAndKeepTablesBetween64And80PercentFull() {
        long slots = SlotLayout.slotsFor(1);
        assertEquals(16, slots);
        for (long live = 1; live < 50_000_000; live++) {
            if (SlotLayout.overloaded(live + 1, slots)) {
                long grown = SlotLayout.slotsFor(live + 1);
                double ratio = (double) grown / slots;
                assertTrue(ratio >= 1.14 && ratio <= 1.25, "from " + slots + " to " + grown);
                slots = grown;
                if (live > 1000) {
                    assertTrue((live + 1) >= 0.63 * slots, "live=" + live + " slots=" + slots);
                }
            }
        }
    }

    @Test
    void shouldPlaceEveryHashInsideTheTableAndFromTheTagAloneUpTo2To26Slots() {
        // Format 4 placed by tag up to 2^24 slots only: 1G entries in 64 segments went past it.
        assertEquals(26, SlotLayout.TAG_BITS);
        long placedByTag = 0;
        SplittableRandom random = new SplittableRandom(7);
        for (long entries = 1; entries < (1L << 39); entries = entries * 5 / 4 + 1) {
            long slots = SlotLayout.slotsFor(entries);
            long lowest = Long.MAX_VALUE;
            long highest = -1;
            for (int i = 0; i < 20_000; i++) {
                long hash = random.nextLong();
                long bucket = SlotLayout.bucket(hash, slots);
                assertTrue(bucket >= 0 && bucket < slots, "bucket=" + bucket + " slots=" + slots);
                lowest = Math.min(lowest, bucket);
                highest = Math.max(highest, bucket);
                if (slots <= 1L << SlotLayout.TAG_BITS) {
                    assertEquals(bucket, SlotLayout.bucketOfSlot(SlotLayout.slot(hash, 4096, 4), slots));
                    placedByTag = Math.max(placedByTag, slots);
                }
            }
            // Spread over the whole table, not bunched at one end.
            assertTrue(lowest <= slots / 64 && highest >= slots - 1 - slots / 64, "slots=" + slots);
        }
        assertTrue(placedByTag > 1L << 25, "placed by tag up to slots=" + placedByTag);
    }

    @Test
    void shouldKeepTheTagAndTheLastPositionOfTheLargestFileInOneSlot() {
        for (int shift = 4; shift <= 6; shift++) {
            long last = SlotLayout.maxFileBytes(shift) - (1L << shift);
            long hash = -1L;
            long slot = SlotLayout.slot(hash, last, shift);
            assertEquals(last, SlotLayout.position(slot, shift));
            assertTrue(SlotLayout.tagMatches(slot, hash));
            assertTrue(SlotLayout.isEntry(slot));
        }
        assertEquals(4L << 40, SlotLayout.maxFileBytes(4));
        assertEquals(16L << 40, SlotLayout.maxFileBytes(6));
    }

    @Test
    void shouldLeaveEveryTagBitFreeWithinOneSegmentOfTheLargestSegmentCount() {
        // The segment comes from the low bits: with 65536 segments the keys of one segment still
        // carry tags over the whole 26-bit range (format 4 took segments from the top bits, which
        // overlapped the tag from 256 segments on).
        int mask = (1 << 16) - 1;
        SplittableRandom random = new SplittableRandom(11);
        long tagOr = 0;
        long tagAnd = -1;
        int inSegment = 0;
        for (int i = 0; i < 2_000_000 && inSegment < 64; i++) {
            long hash = random.nextLong();
            if (SlotLayout.segmentOf(hash, mask) == 12_345) {
                tagOr |= SlotLayout.tag(hash);
                tagAnd &= SlotLayout.tag(hash);
                inSegment++;
            }
        }
        assertTrue(inSegment >= 10, "inSegment=" + inSegment);
        assertEquals((1L << SlotLayout.TAG_BITS) - 1, tagOr);
        assertEquals(0, tagAnd);
    }

    @Test
    void shouldRefuseMalformedTableWords() {
        assertEquals(-1, SlotLayout.slots(4096));
        assertEquals(-1, SlotLayout.slots(-1L));
        assertEquals(-1, SlotLayout.slots(SlotLayout.tableWord(4096, 16) + 8));
    }
}
