package dev.colossal.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class SmokeTest {
    @Test
    void primitives() {
        Codec<Samples.Primitives> c = Codecs.of(Samples.Primitives.class);
        Samples.Primitives p = new Samples.Primitives(true, (byte) 1, (short) 2, 'x', 3, 4L, 5f, 6d);
        MemorySegment s = Arena.ofAuto().allocate(c.encodedSize(p));
        assertEquals(s.byteSize(), c.encode(p, s, 0));
        assertEquals(p, c.decode(s));
        Codec<Samples.Node> n = Codecs.of(Samples.Node.class);
        Samples.Node node = new Samples.Node(1, new Samples.Node(2, null));
        MemorySegment s2 = Arena.ofAuto().allocate(n.encodedSize(node));
        n.encode(node, s2, 0);
        assertEquals(node, n.decode(s2));
        System.out.println(Codecs.schema(n));
    }
}
