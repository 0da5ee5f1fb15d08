/**
 * Codecs: values to bytes and back, in a documented little-endian format.
 */
package dev.colossal.codec;
