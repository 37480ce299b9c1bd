import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

type ContentBlock = CallToolResult['content'][number];

/**
 * The text a model reads for an MCP tool result: text blocks as they are
 * (joined by blank lines), a resource's text, and a short placeholder for
 * what a text-only tool result cannot carry (images, audio, binary
 * resources). With no content, the structured content as JSON.
 */
export function mcpResultText(result: CallToolResult): string {
  const parts = (result.content ?? []).map(blockText).filter((text) => text !== '');
  if (parts.length > 0) return parts.join('\n\n');
  if (result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return '';
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return `[image ${block.mimeType}, ${approximateBytes(block.data)} bytes]`;
    case 'audio':
      return `[audio ${block.mimeType}, ${approximateBytes(block.data)} bytes]`;
    case 'resource': {
      const resource = block.resource;
      return 'text' in resource && typeof resource.text === 'string' ? resource.text : `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}]`;
    }
    case 'resource_link':
      return `[resource ${block.uri}${block.name ? ` "${block.name}"` : ''}]`;
    default:
      return '';
  }
}

function approximateBytes(base64: string): number {
  return Math.floor((base64.length * 3) / 4);
}
