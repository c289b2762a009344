//! HandleCache (being written)
