// The smallest valid media the fixtures need: a 1×1 red PNG and eight samples of 8 kHz 8-bit mono silence.

/** A 1×1 RGB PNG, base64. */
export const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

/** A 52-byte PCM WAV, base64. */
export const WAV = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";
