package dev.colossal.server;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The server's pub/sub registry: who listens to which channel, pattern and shard channel, and the
 * fan-out of a published message to their {@link Mailbox}es.
 *
 * <p>Thread safety. Connections live on several event loops and a command runs on its connection's
 * loop, so PUBLISH, SUBSCRIBE and the rest come from any loop. Every read and change of the registry
 * happens under one lock, the publisher's fan-out included. So a PUBLISH is atomic with respect to
 * subscribing and unsubscribing: once UNSUBSCRIBE's removal returns, no publisher still holds the old
 * registration, and the subscriber's loop, which drains its mailbox after that removal and before it
 * answers, writes every message published while it listened ahead of the confirmation, as
 * redis-server's single thread would. Publishes are ordered by the lock too, so all subscribers of a
 * channel see its messages in one order. Under the lock a publisher only encodes the message once
 * and offers it to lock-free queues; it never touches another loop's buffers or sockets.
 */
final class PubSub {

    /** The three kinds of subscription, with the words their replies and messages carry. */
    enum Kind {
        CHANNEL("subscribe", "unsubscribe", "message"),
        PATTERN("psubscribe", "punsubscribe", "pmessage"),
        SHARD("ssubscribe", "sunsubscribe", "smessage");

        final byte[] subscribe;
        final byte[] unsubscribe;
        final byte[] message;

        Kind(String subscribe, String unsubscribe, String message) {
            this.subscribe = subscribe.getBytes(StandardCharsets.US_ASCII);
            this.unsubscribe = unsubscribe.getBytes(StandardCharsets.US_ASCII);
            this.message = bulk(message.getBytes(StandardCharsets.US_ASCII));
        }
    }

    /**
     * A channel or pattern name, compared by its bytes.
     *
     * @param bytes the name as the client sent it
     */
    record Name(byte[] bytes) {

        @Override
        public boolean equals(Object o) {
            return o instanceof Name n && Arrays.equals(bytes, n.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }

        @Override
        public String toString() {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    private final Map<Kind, Map<Name, Set<Subscriber>>> registry = new HashMap<>();
    /** A pmessage's head for each pattern subscribed to: its kind and pattern, encoded once. */
    private final Map<Name, byte[]> patternHeads = new HashMap<>();
    /** INFO's counts, read without the lock. */
    private volatile int channelCount;
    private volatile int patternCount;
    private volatile int shardChannelCount;

    PubSub() {
        registry.put(Kind.CHANNEL, new HashMap<>());
        registry.put(Kind.PATTERN, new LinkedHashMap<>());
        registry.put(Kind.SHARD, new HashMap<>());
    }

    /** @return whether {@code s} was not yet subscribed to {@code name} */
    synchronized boolean subscribe(Subscriber s, Kind kind, Name name) {
        if (!s.names(kind).add(name)) {
            return false;
        }
        registry.get(kind).computeIfAbsent(name, n -> new LinkedHashSet<>()).add(s);
        if (kind == Kind.PATTERN) {
            patternHeads.computeIfAbsent(name, n -> concat(kind.message, bulk(n.bytes())));
        }
        changed(s);
        return true;
    }

    /** @return whether {@code s} was subscribed to {@code name} */
    synchronized boolean unsubscribe(Subscriber s, Kind kind, Name name) {
        if (!s.names(kind).remove(name)) {
            return false;
        }
        Map<Name, Set<Subscriber>> byName = registry.get(kind);
        Set<Subscriber> subs = byName.get(name);
        subs.remove(s);
        if (subs.isEmpty()) {
            byName.remove(name);
            patternHeads.remove(name);
        }
        changed(s);
        return true;
    }

    /** Removes every subscription of {@code s}: its connection closed or was RESET. */
    synchronized void unsubscribeAll(Subscriber s) {
        for (Kind kind : Kind.values()) {
            for (Name name : new ArrayList<>(s.names(kind))) {
                unsubscribe(s, kind, name);
            }
        }
    }

    private void changed(Subscriber s) {
        s.recount();
        channelCount = registry.get(Kind.CHANNEL).size();
        patternCount = registry.get(Kind.PATTERN).size();
        shardChannelCount = registry.get(Kind.SHARD).size();
    }

    /**
     * PUBLISH (or SPUBLISH, {@code kind} SHARD): offers the message to every subscriber of the
     * channel and, for PUBLISH, of every pattern it matches.
     *
     * @return the receivers as Redis counts them: a connection subscribed by the channel and by a
     *     matching pattern counts twice
     */
    synchronized int publish(Kind kind, byte[] channel, byte[] message) {
        byte[] tail = null;
        int receivers = 0;
        Set<Subscriber> direct = registry.get(kind).get(new Name(channel));
        if (direct != null) {
            tail = concat(bulk(channel), bulk(message));
            Mailbox.Frame f = new Mailbox.Frame(3, kind.message, tail);
            for (Subscriber s : direct) {
                s.mailbox.offer(f);
                receivers++;
            }
        }
        if (kind == Kind.CHANNEL) {
            for (Map.Entry<Name, Set<Subscriber>> e : registry.get(Kind.PATTERN).entrySet()) {
                if (Glob.matches(e.getKey().bytes(), channel)) {
                    if (tail == null) {
                        tail = concat(bulk(channel), bulk(message));
                    }
                    Mailbox.Frame f = new Mailbox.Frame(4, patternHeads.get(e.getKey()), tail);
                    for (Subscriber s : e.getValue()) {
                        s.mailbox.offer(f);
                        receivers++;
                    }
                }
            }
        }
        return receivers;
    }

    /** PUBSUB CHANNELS and SHARDCHANNELS: the names with a subscriber that {@code pattern} (null: any) matches. */
    synchronized List<byte[]> channels(Kind kind, byte[] pattern) {
        List<byte[]> out = new ArrayList<>();
        for (Name n : registry.get(kind).keySet()) {
            if (pattern == null || Glob.matches(pattern, n.bytes())) {
                out.add(n.bytes());
            }
        }
        return out;
    }

    /** PUBSUB NUMSUB and SHARDNUMSUB: the subscribers of one channel, not counting patterns. */
    synchronized int subscribers(Kind kind, byte[] channel) {
        Set<Subscriber> subs = registry.get(kind).get(new Name(channel));
        return subs == null ? 0 : subs.size();
    }

    /** INFO's {@code pubsub_channels}: channels with a subscriber. */
    int channelCount() {
        return channelCount;
    }

    /** INFO's {@code pubsub_patterns} and PUBSUB NUMPAT: distinct patterns subscribed to, as Redis 7 counts them. */
    int patternCount() {
        return patternCount;
    }

    /** INFO's {@code pubsubshard_channels}. */
    int shardChannelCount() {
        return shardChannelCount;
    }

    static byte[] bulk(byte[] b) {
        byte[] head = ("$" + b.length + "\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[head.length + b.length + 2];
        System.arraycopy(head, 0, out, 0, head.length);
        System.arraycopy(b, 0, out, head.length, b.length);
        out[out.length - 2] = '\r';
        out[out.length - 1] = '\n';
        return out;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
