import { ApiError, credentialHeaders, problemOfText, refreshTokens } from '../api/client';

/**
 * Sends a multipart form with XMLHttpRequest, which (unlike fetch) reports upload progress. Same headers and
 * error handling as the other API calls.
 */
export function uploadForm<T>(url: string, form: FormData, onProgress: (fraction: number) => void): Promise<T> {
  const attempt = () =>
    new Promise<{ status: number; statusText: string; text: string }>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', url);
      for (const [name, value] of Object.entries(credentialHeaders())) xhr.setRequestHeader(name, value);
      xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
      xhr.onload = () => resolve({ status: xhr.status, statusText: xhr.statusText, text: xhr.responseText });
      xhr.onerror = () => reject(new TypeError('network error during upload'));
      xhr.send(form);
    });
  return (async () => {
    let res = await attempt();
    if (res.status === 401 && (await refreshTokens())) res = await attempt();
    if (res.status < 200 || res.status >= 300) throw await problemOfText(res.status, res.statusText, res.text);
    onProgress(1);
    return JSON.parse(res.text) as T;
  })();
}

export const ACCEPTED = ['.pdf', '.txt', '.md', '.markdown', '.json'];

export function acceptedFile(file: File): boolean {
  const name = file.name.toLowerCase();
  return ACCEPTED.some((ext) => name.endsWith(ext));
}

export { ApiError };
