package dev.colossal.server;

import java.util.ArrayList;
import java.util.List;

/**
 * The value of Redis's {@code bind}: up to {@link #MAX} addresses, each one listened on; a {@code -}
 * before one makes it optional (not bound, no error, if the host has no such address), {@code *}
 * is every IPv4 address and {@code ::*} every IPv6 one. This server listens on one address: CONFIG
 * SET bind takes the first of them that can be bound ({@link #candidates}).
 */
final class BindAddresses {

    /** The most addresses Redis takes in one {@code bind}. */
    static final int MAX = 16;

    /** One address to try, as a socket takes it, and whether failing to bind it is no error. */
    record Candidate(String address, boolean optional) {}

    private BindAddresses() {}

    /**
     * @return the addresses of {@code value} in order, {@code *} and {@code ::*} as the wildcards they
     *     mean; empty if it names none
     * @throws IllegalArgumentException with Redis's words, past {@link #MAX} addresses
     */
    static List<Candidate> candidates(String value) {
        String stripped = value.strip();
        String[] words = stripped.isEmpty() ? new String[0] : stripped.split("\\s+");
        if (words.length > MAX) {
            throw new IllegalArgumentException("Too many bind addresses specified.");
        }
        List<Candidate> out = new ArrayList<>();
        for (String w : words) {
            out.add(address(w));
        }
        return out;
    }

    /** @return one word of a {@code bind} value as an address to bind */
    static Candidate address(String word) {
        boolean optional = word.startsWith("-");
        String a = optional ? word.substring(1) : word;
        return new Candidate(a.equals("*") ? "0.0.0.0" : a.equals("::*") ? "::" : a, optional);
    }
}
