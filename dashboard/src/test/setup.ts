import { configure } from '@testing-library/react';
import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

afterEach(() => cleanup());

// findBy*/waitFor wait up to 5 s (default 1 s): whole pages re-render slowly in jsdom on a busy 2-core machine
configure({ asyncUtilTimeout: 5000 });
