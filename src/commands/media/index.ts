// `xctl media`: the media upload API (v2 chunked).
import type { Command } from 'commander';
import { register as registerUpload } from './upload.js';

export function register(media: Command): void {
  media.description('media upload (images, GIFs, videos) for posts, cards and the ads media library');
  registerUpload(media);
}
