#ifndef PIPE_CARCHIVE_SHIM_H
#define PIPE_CARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>

// The file-type macros are casts, which Swift does not import.
static const unsigned int pipe_archive_type_mask = AE_IFMT;
static const unsigned int pipe_archive_type_file = AE_IFREG;
static const unsigned int pipe_archive_type_folder = AE_IFDIR;
static const unsigned int pipe_archive_type_link = AE_IFLNK;
static const unsigned int pipe_archive_type_fifo = AE_IFIFO;
static const unsigned int pipe_archive_type_character_device = AE_IFCHR;
static const unsigned int pipe_archive_type_block_device = AE_IFBLK;
static const unsigned int pipe_archive_type_socket = AE_IFSOCK;
#endif
