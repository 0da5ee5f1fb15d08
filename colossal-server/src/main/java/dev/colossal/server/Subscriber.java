package dev.colossal.server;

import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * A connection's side of pub/sub: the channels, patterns and shard channels it listens to, and the
 * {@link Mailbox} publishers leave its messages in. Made at the connection's first (P|S)SUBSCRIBE
 * and kept until it closes.
 *
 * <p>The sets are changed only by {@link PubSub}, under its lock, on the connection's own loop, and
 * read there without the lock (no other thread writes them). Their sizes are copied to volatile
 * counts for CLIENT LIST, which any loop runs. Patterns keep the order they were subscribed in, as
 * PUNSUBSCRIBE without arguments answers them in Redis.
 */
final class Subscriber {

    final Mailbox mailbox;
    /** Redis's pub/sub output buffer limit (its replica limit once PSYNC made it a replica), checked on the connection's loop. */
    OutputLimit limit = new OutputLimit();
    private final Map<PubSub.Kind, Set<PubSub.Name>> names = new EnumMap<>(PubSub.Kind.class);
    /** CLIENT LIST's {@code sub=}, {@code psub=} and {@code ssub=}. */
    volatile int channels;
    volatile int patterns;
    volatile int shardChannels;

    Subscriber(Mailbox mailbox) {
        this.mailbox = mailbox;
        for (PubSub.Kind k : PubSub.Kind.values()) {
            names.put(k, new LinkedHashSet<>());
        }
    }

    /** @return the names of {@code kind} this connection listens to, live: copy before unsubscribing while iterating */
    Set<PubSub.Name> names(PubSub.Kind kind) {
        return names.get(kind);
    }

    /**
     * The count a (un)subscribe confirmation ends with, as Redis gives it: channels and patterns
     * together, shard channels on their own.
     */
    int count(PubSub.Kind kind) {
        return kind == PubSub.Kind.SHARD ? shardChannels : channels + patterns;
    }

    /** @return whether the connection listens to anything: Redis's pub/sub mode */
    boolean subscribed() {
        return channels + patterns + shardChannels > 0;
    }

    /** Copies the sets' sizes to the counts other threads read; called under {@link PubSub}'s lock after a change. */
    void recount() {
        channels = names.get(PubSub.Kind.CHANNEL).size();
        patterns = names.get(PubSub.Kind.PATTERN).size();
        shardChannels = names.get(PubSub.Kind.SHARD).size();
    }
}
