package dev.colossal.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A redis.conf line's words, as redis-server splits a {@code user} line. */
class ConfigWordsTest {

    @Test
    void quotesHoldSpacesAndEscapes() {
        assertEquals(List.of("bob", "on", ">two words", "~*"), ConfigWords.split("bob  on \">two words\" ~*", "f:1"));
        assertEquals(List.of(">a\"b\\c\nA"), ConfigWords.split("\">a\\\"b\\\\c\\n\\x41\"", "f:1"));
        assertEquals(List.of(">it's", "x\\y"), ConfigWords.split("'>it\\'s' 'x\\y'", "f:1"));
        assertEquals(List.of("a\"b"), ConfigWords.split("a\"b", "f:1"), "a quote inside a word is a character");
        assertEquals(List.of(), ConfigWords.split("   ", "f:1"));
    }

    @Test
    void aQuoteNotClosedOrNotEndingItsWordIsAnError() {
        assertEquals("f:3: unbalanced quotes in bob \">x", assertThrows(IllegalArgumentException.class,
                () -> ConfigWords.split("bob \">x", "f:3")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> ConfigWords.split("bob \">x\"y", "f:3"));
    }
}
